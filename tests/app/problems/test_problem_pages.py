"""The problem list with URL filters, and the problem page's sections, math and safety."""

from __future__ import annotations

import re


def _listed(html: str) -> list[str]:
    return re.findall(r'class="problem-row" data-slug="([^"]+)"', html)


def test_list_shows_problems_with_difficulty_category_tags_and_lock(browser) -> None:
    for path in ("/", "/problems"):
        page = browser.get(path)
        assert page.status_code == 200
        assert set(_listed(page.text)) >= {"add-tensors", "scale-rows", "sum-of-squares"}
    html = browser.get("/problems").text
    row = re.search(r'data-slug="scale-rows">(.*?)</tr>', html, re.S).group(1)  # type: ignore[union-attr]
    assert "Premium" in row and "locked" in row and "diff-medium" in row and "Test Basics" in row
    row = re.search(r'data-slug="add-tensors">(.*?)</tr>', html, re.S).group(1)  # type: ignore[union-attr]
    assert "Premium" not in row and 'href="/problems?tag=arithmetic"' in row


def test_filters_live_in_the_url(browser) -> None:
    assert _listed(browser.get("/problems?difficulty=hard").text) == ["sum-of-squares"]
    assert set(_listed(browser.get("/problems?category=Test+Basics").text)) == {"add-tensors", "scale-rows"}
    assert set(_listed(browser.get("/problems?tag=tensors").text)) == {"add-tensors", "scale-rows"}
    assert _listed(browser.get("/problems?q=SQUARES").text) == ["sum-of-squares"]
    assert _listed(browser.get("/problems?q=broadcast").text) == ["scale-rows"]  # matches a tag
    combined = browser.get("/problems?tag=tensors&difficulty=easy").text
    assert _listed(combined) == ["add-tensors"]
    assert '<option value="easy" selected>' in combined and '<option value="tensors" selected>' in combined
    empty = browser.get("/problems?q=nothing-matches-this")
    assert empty.status_code == 200 and _listed(empty.text) == [] and "No problem matches" in empty.text


def test_unknown_difficulty_is_explained(browser) -> None:
    page = browser.get("/problems?difficulty=legendary")
    assert page.status_code == 400 and "Unknown difficulty" in page.text
    api = browser.get("/api/problems?difficulty=legendary")
    assert api.status_code == 422 and api.json()["error"] == "invalid_input"
    assert [p["slug"] for p in browser.get("/api/problems?difficulty=hard").json()["problems"]] == [
        "sum-of-squares"
    ]


def test_problem_page_sections_math_and_sanitising(browser) -> None:
    page = browser.get("/problems/add-tensors")
    assert page.status_code == 200
    html = page.text
    for title in ("Problem Statement", "Example", "Constraints", "Learn"):
        assert f">{title}</h2>" in html
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in html
    assert "<msub><mi>c</mi><mi>i</mi></msub>" in html  # $c_i = a_i + b_i$ as MathML
    assert '<code class="language-python"><span class="n">add</span>' in html  # Pygments-highlighted example
    assert 'alert("statement")' not in html and "onclick" not in html and "steal()" not in html
    assert "Hover text" in html  # the harmless part of the author's HTML is kept
    assert "Broadcasting" in html and "Every layer adds a bias." in html  # learn section in full
    assert "Python 3." in html and "torch 2." in html  # the runtime, as the sandbox reports it
    assert "raise NotImplementedError" in html  # starter code in the editor
    assert "/static/vendor/editor." in html
    assert "0/0 — run code to see test results" in html


def test_related_problems_from_the_same_category(browser) -> None:
    html = browser.get("/problems/add-tensors").text
    related = re.search(r'<aside class="related card".*?</aside>', html, re.S).group(0)  # type: ignore[union-attr]
    assert "More from Test Basics" in related
    assert (
        'href="/problems/scale-rows"' in related and "premium locked" in related and "diff-medium" in related
    )
    assert "sum-of-squares" not in related


def test_unknown_problem_is_a_404_page(browser) -> None:
    page = browser.get("/problems/does-not-exist")
    assert page.status_code == 404 and "does-not-exist" in page.text
    assert browser.get("/nowhere", headers={"Accept": "application/json"}).json()["error"] == "not_found"


def test_pages_only_load_local_assets(browser) -> None:
    html = browser.get("/problems/add-tensors").text
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert browser.get("/static/vendor/editor.js").status_code == 200
    assert browser.get("/static/css/app.css").status_code == 200
    assert "default-src 'self'" in browser.get("/problems").headers["content-security-policy"]
