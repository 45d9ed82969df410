"""The tracks pages (progress, continue link, sign-up call), previous/next within a track on the
problem page, and hints revealed one at a time, remembered, and locked on Premium problems.

The test bank's tracks.toml has PyTorch Advanced (9, empty here), Test Basics (10: add-tensors 1,
scale-rows 2 Premium) and Test Reductions (11: sum-of-squares).
"""

from __future__ import annotations

import re


def _track(html: str, slug: str) -> str:
    """The HTML of one track's card on the tracks page."""
    cards = html.split('<li class="card track" ')[1:]
    found = [c for c in cards if c.startswith(f'id="track-{slug}"')]
    assert found, f"track {slug} is not on the page"
    return found[0]


def _listed(html: str) -> list[str]:
    return re.findall(r'<li class="track-problem[^"]*" data-slug="([^"]+)"', html)


def test_signed_out_visitors_see_the_tracks_in_order_and_a_sign_up_call(browser) -> None:
    page = browser.get("/tracks")
    assert page.status_code == 200
    order = re.findall(r'id="track-([a-z0-9-]+)"', page.text)
    assert order.index("pytorch-advanced") < order.index("test-basics") < order.index("test-reductions")
    basics = _track(page.text, "test-basics")
    assert _listed(basics) == ["add-tensors", "scale-rows"]  # by `order`, not by title or difficulty
    assert "Premium" in basics and "locked" in basics
    assert 'id="signup-cta"' in page.text and "Continue:" not in page.text and "progressbar" not in page.text
    assert "Problems for this track are on their way." in _track(page.text, "pytorch-advanced")
    assert '<a href="/tracks">Tracks</a>' in page.text  # the header links here
    assert 'href="/tracks"' in browser.get("/problems").text  # and so does the problem list


def test_progress_and_the_continue_link_follow_the_learners_submissions(learner, code_of) -> None:
    page = learner.get("/tracks").text
    assert 'id="signup-cta"' not in page
    basics = _track(page, "test-basics")
    assert 'data-solved="0" data-attempted="0" data-total="2"' in basics
    assert 'class="btn btn-primary continue" href="/problems/add-tensors">Continue: Add Two Tensors' in basics

    forgets_to_square = "def sum_of_squares(x):\n    return float(x.sum().item())\n"
    wrong = learner.submit("sum-of-squares", forgets_to_square)
    assert learner.verdict(wrong.json()["id"])["verdict"] == "wrong_answer"
    solved = learner.submit("add-tensors", code_of("add-tensors"))
    assert learner.verdict(solved.json()["id"])["verdict"] == "accepted"

    page = learner.get("/tracks").text
    basics = _track(page, "test-basics")
    assert 'data-solved="1" data-attempted="1" data-total="2"' in basics
    assert 'aria-valuenow="1"' in basics and "width: 50%" in basics
    assert 'href="/problems/scale-rows">Continue: Scale Rows' in basics  # the next unsolved one
    assert 'class="track-problem is-solved" data-slug="add-tensors"' in basics
    reductions = _track(page, "test-reductions")
    assert 'data-solved="0" data-attempted="1" data-total="1"' in reductions
    assert 'class="track-problem is-attempted" data-slug="sum-of-squares"' in reductions

    one = learner.get("/tracks/test-basics")
    assert one.status_code == 200 and 'id="track-test-reductions"' not in one.text
    assert 'data-solved="1"' in one.text and '<a href="/tracks">All tracks</a>' in one.text


def test_an_unknown_track_is_a_404(browser) -> None:
    assert browser.get("/tracks/no-such-track").status_code == 404


def test_the_problem_page_links_previous_and_next_within_its_track(browser) -> None:
    first = browser.get("/problems/add-tensors").text
    assert 'id="track-link" href="/tracks/test-basics"' in first
    assert 'id="track-next" rel="next" href="/problems/scale-rows">Next: Scale Rows' in first
    assert 'id="track-previous"' not in first and "Problem 1 of 2 in" in first
    second = browser.get("/problems/scale-rows").text
    assert 'id="track-previous" rel="prev" href="/problems/add-tensors">← Previous: Add Two Tensors' in second
    # the end of the track: Next goes on to the next track's first problem (the one order)
    assert 'id="track-next" rel="next" href="/problems/sum-of-squares"' in second
    assert "Problem 2 of 2 in" in second
    alone = browser.get("/problems/sum-of-squares").text
    assert "Problem 1 of 1 in" in alone and 'id="track-next"' not in alone


def _reveal(client, slug: str) -> object:
    return client.post(f"/api/problems/{slug}/hints/next", headers={"X-CSRF-Token": client.csrf()})


def test_hints_are_revealed_one_at_a_time_and_remembered(learner) -> None:
    page = learner.get("/problems/add-tensors").text
    assert ">Show hint 1 of 2</button>" in page and "Tensors of the same shape" not in page

    first = _reveal(learner, "add-tensors")
    assert first.status_code == 200
    assert first.json()["revealed"] == ["Tensors of the same shape add element by element."]
    assert first.json()["remaining"] == 1 and first.json()["total"] == 2
    assert "<code>a + b</code>" not in "".join(first.json()["revealed_html"])

    page = learner.get("/problems/add-tensors").text  # a reload shows what was revealed
    assert "Tensors of the same shape add element by element." in page
    assert ">Show hint 2 of 2</button>" in page

    second = _reveal(learner, "add-tensors").json()
    assert (
        second["remaining"] == 0
        and second["revealed_html"][1] == "<p><code>a + b</code> is all it takes.</p>\n"
    )
    again = _reveal(learner, "add-tensors").json()
    assert again == second  # nothing more to reveal: nothing changes
    page = learner.get("/problems/add-tensors").text
    assert 'id="hint-btn" hidden' in page and "All 2 hints shown." in page
    assert learner.get("/api/problems/add-tensors/hints").json()["revealed"] == second["revealed"]
    assert learner.get("/api/problems/sum-of-squares/hints").json()["revealed"] == []  # per problem


def test_revealing_needs_a_session_and_the_csrf_token(browser, learner) -> None:
    page = browser.get("/problems/add-tensors").text
    assert (
        'id="hints-login"' in page
        and "2 hints, revealed one at a time" in page
        and 'id="hint-btn"' not in page
    )
    assert browser.get("/api/problems/add-tensors/hints").json()["revealed"] == []
    assert (
        browser.post(
            "/api/problems/add-tensors/hints/next", headers={"X-CSRF-Token": browser.csrf()}
        ).status_code
        == 401
    )
    assert learner.post("/api/problems/add-tensors/hints/next").status_code == 403  # no CSRF token
    assert learner.get("/api/problems/add-tensors/hints").json()["revealed"] == []


def test_a_locked_premium_problem_reveals_no_hint(learner, admin) -> None:
    page = learner.get("/problems/scale-rows").text
    assert (
        'id="hints-locked"' in page and "3 hints — part of Premium." in page and 'id="hint-btn"' not in page
    )
    refused = _reveal(learner, "scale-rows")
    assert refused.status_code == 403 and refused.json()["error"] == "premium_required"
    view = learner.get("/api/problems/scale-rows/hints").json()
    assert view == {"revealed": [], "revealed_html": [], "total": 3, "remaining": 0, "locked": True}
    allowed = _reveal(admin, "scale-rows").json()  # staff have Premium
    assert allowed["revealed"] == ["Each row is multiplied by its own factor."] and not allowed["locked"]
