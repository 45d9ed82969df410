"""Stored XSS against solutions in Chromium: every attempt of :mod:`tests.browser.xss` as a
write-up, a title, a tag and a comment — half through the pages' forms, half through the API — and
all of them in an editorial (the bank folder's ``editorial.md``, and the authoring form's Editorial
field; one with a NUL is refused there as a post is), then every page that shows them
viewed by another learner (and the author) with the trap installed, every element hovered and every
link clicked. Nothing may run, and no image may load from another host."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server, Visit, Visits
from tests.browser.solutions_world import Api, scratch_problem
from tests.browser.xss import PAYLOADS, assert_no_script_ran, install_trap

# What an editorial may hold: the attempts a post may hold (a NUL is refused, as in every post).
EDITORIAL_PAYLOADS = [(family, text) for family, text in PAYLOADS if "\x00" not in text]

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1200)]

MAX_TAG = 30


def tag_of(text: str) -> str:
    """The payload as a tag the bounds accept: one line, at most 30 characters."""
    return " ".join(text.split())[:MAX_TAG] or "empty"


def publish_on_page(
    v: Visit, slug: str, submission_id: int, title: str, write_up: str, tag: str
) -> int | None:
    """The new solution's id, or None when the form refused the text (it says why, and keeps it)."""
    page = v.page
    page.goto(f"/problems/{slug}/solutions")
    page.get_by_text("Publish your solution").click()
    page.get_by_label("Accepted submission").select_option(str(submission_id))
    page.get_by_label("Title").fill(title)
    page.get_by_label("Write-up").fill(write_up)
    page.get_by_label("Approach tags").fill(tag.replace(",", " "))
    page.get_by_role("button", name="Publish").click()
    page.wait_for_load_state("load")
    if page.locator("#publish-error").count():
        kept = write_up.replace("\r\n", "\n").replace("\x00", "\ufffd")  # the HTML parser's NUL
        assert page.get_by_label("Write-up").input_value() == kept
        return None
    page.wait_for_url(re.compile(r"/solutions/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def comment_on_page(page: Page, solution_id: int, body: str) -> bool:
    """Whether the comment was stored (False: refused with the reason shown)."""
    page.goto(f"/solutions/{solution_id}")
    page.get_by_label("Add a comment").fill(body)
    page.get_by_role("button", name="Comment", exact=True).click()
    page.wait_for_load_state("load")
    if page.locator("#comment-error").count():
        return False
    page.wait_for_url(re.compile(rf"/solutions/{solution_id}(\?after=[\w-]+)?#comment-\d+$"))
    return True


SAFE_HREF = re.compile(r"^(/(?![/\\])|#|\?|https?://|mailto:)")


# Where user-written text shows, on each kind of page (the rest of the page is ours).
USER_PARTS = ("#solution-list a, nav .tag, #solutions-title, #write-up *, .comment-body *, #solution-title, "
              ".solution-tags a, #compare h1, #editorial-body *")  # fmt: skip


def hover_everything(page: Page) -> None:
    """Hover every element of the user-written parts (event-handler payloads get their chance)."""
    for element in page.locator(USER_PARTS).all():
        if element.is_visible():
            element.hover(timeout=2000)


def view_everything(v: Visit, urls: list[str]) -> None:
    """Each page: no script ran on load, nor on hovering anything; every link's target is harmless."""
    for url in urls:
        response = v.page.goto(url)
        assert response is not None and response.status == 200, url
        assert_no_script_ran(v.page)
        hover_everything(v.page)
        assert_no_script_ran(v.page)
        hrefs = v.page.eval_on_selector_all("main a[href]", "els => els.map(e => e.getAttribute('href'))")
        assert [h for h in hrefs if not SAFE_HREF.match(h)] == [], url


def click_user_links(v: Visit, url: str, scope: str) -> None:
    """Click every link in the user-written parts of ``url``, from a fresh load each time."""
    page = v.page
    page.goto(url)
    for n in range(page.locator(f"{scope} a[href]").count()):
        page.goto(url)
        link = page.locator(f"{scope} a[href]").nth(n)
        href = link.get_attribute("href") or ""
        if link.is_visible() and not href.startswith(("http://", "https://", "mailto:")):
            link.click(timeout=2000)
            page.wait_for_load_state("load")
            assert_no_script_ran(page)


def test_no_stored_xss_attempt_runs_anywhere_solutions_show(
    visits: Visits, server: Server, tmp_path: Path
) -> None:
    editorial = "\n\n---\n\n".join(text for _family, text in EDITORIAL_PAYLOADS)
    slug = scratch_problem(server, tmp_path, editorial, "xss")
    page_author, api_author, commenter = (server.new_account() for _ in range(3))
    author_visit = visits.new("page-author")
    install_trap(author_visit.context)
    author_visit.login(page_author, f"/problems/{slug}/solutions")
    by_page, by_api, reader_api = Api(server, page_author), Api(server, api_author), Api(server, commenter)
    reader_api.solve(slug)

    solution_ids: list[int] = []
    for n, (family, text) in enumerate(PAYLOADS):
        title = " ".join(text.split())[:120]
        refused = "\x00" in text  # PostgreSQL cannot store NUL: every route refuses it (422)
        if n % 2 == 0:
            made = publish_on_page(author_visit, slug, by_page.solve(slug), title, text, tag_of(text))
            assert (made is None) is refused, family
        else:
            fields = {"title": title, "write_up": text, "tags": [tag_of(text)]}
            created = by_api.post(
                f"/api/v1/problems/{slug}/solutions", json={"submission_id": by_api.solve(slug), **fields}
            )
            assert created.status_code == (422 if refused else 201), (family, created.text)
            made = created.json().get("id")
        if made is not None:
            solution_ids.append(made)
        whole_tag = {"submission_id": by_api.solve(slug), "title": "t", "write_up": "w", "tags": [text]}
        too_long = by_api.post(f"/api/v1/problems/{slug}/solutions", json=whole_tag)
        # A payload as a whole tag is refused when over the bounds (and stored, escaped, otherwise).
        assert too_long.status_code in (201, 422), (family, too_long.text)
        if too_long.status_code == 201:
            solution_ids.append(too_long.json()["id"])
    assert_no_script_ran(author_visit.page)

    reader = visits.new("reader")
    install_trap(reader.context)
    reader.login(commenter, f"/problems/{slug}/solutions")
    targets = solution_ids[:2]
    for n, (family, text) in enumerate(PAYLOADS):
        target = targets[n % 2]
        refused = "\x00" in text
        if n % 2 == 0:
            assert comment_on_page(reader.page, target, text) is not refused, family
        else:
            posted = reader_api.post(f"/api/v1/solutions/{target}/comments", json={"body": text})
            assert posted.status_code == (422 if refused else 201), (family, posted.text)
    assert_no_script_ran(reader.page)

    # Every page that shows them: the listings (both sorts, every page, every tag), each solution,
    # its comparison, the editorial; as the reader and as an author.
    listing = reader_api.get(f"/api/v1/problems/{slug}/solutions", params={"limit": 100}).json()["items"]
    assert {s["id"] for s in listing} == set(solution_ids)
    tags = sorted({t for s in listing for t in s["tags"]})
    urls = [
        f"/problems/{slug}/solutions",
        f"/problems/{slug}/solutions?sort=newest",
        f"/problems/{slug}/editorial",
    ]
    urls += [f"/problems/{slug}/solutions?tag={t}" for t in tags[:10]]
    more = reader.page
    for sort in ("votes", "newest"):
        more.goto(f"/problems/{slug}/solutions?sort={sort}")
        while more.locator("#next-page").count():
            href = more.locator("#next-page").get_attribute("href") or ""
            urls.append(f"/problems/{slug}/solutions{href}")
            more.goto(urls[-1])
    assert any("after=" in u for u in urls)  # the listing spans several pages: each is viewed
    view_everything(reader, urls)
    view_everything(reader, [f"/solutions/{sid}" for sid in solution_ids])
    view_everything(reader, [f"/solutions/{sid}/compare" for sid in solution_ids])
    for sid in solution_ids[:2]:
        click_user_links(reader, f"/solutions/{sid}", "#write-up, #solution .comment-body")
    click_user_links(reader, f"/problems/{slug}/editorial", "#editorial-body")
    view_everything(author_visit, [f"/solutions/{sid}" for sid in solution_ids[:4]])  # the author's own view
    # No image loaded from another host: Visits' teardown fails on any foreign request.
    assert reader.page.locator("main img[src^='http'], main img[src^='//']").count() == 0


def publish_editorial(v: Visit, slug: str, text: str) -> bool:
    """Put ``text`` in the authoring form's Editorial field and press Publish (the sandbox validates
    the problem); whether it is live (False: the form refused it, saying why)."""
    page = v.page
    page.goto(f"/authoring/problems/{slug}")
    page.locator("#f-editorial").fill(text)
    assert_no_script_ran(page)  # the live preview renders it as it is typed
    page.locator("#publish-btn").click()
    page.wait_for_load_state("load", timeout=120_000)
    page.wait_for_url(re.compile(rf"/authoring/problems/{slug}"), timeout=120_000)
    assert_no_script_ran(page)
    return "notice=published" in page.url


def test_no_stored_xss_attempt_runs_from_the_authoring_forms_editorial(
    visits: Visits, server: Server, tmp_path: Path
) -> None:
    """Every attempt through the authoring form's Editorial field, published, and its editorial
    page viewed by a learner and the author with the trap, every element hovered and every link
    clicked; the attempts with a NUL are refused first, saying why, as a post would be."""
    slug = scratch_problem(server, tmp_path, "A first editorial.", "xss-form", publishable=True)
    author = visits.new("editorial-author")
    install_trap(author.context)
    author.login(server.accounts.author, f"/authoring/problems/{slug}")
    reader = visits.new("editorial-reader")
    install_trap(reader.context)
    learner = server.new_account()
    Api(server, learner).solve(slug)
    reader.login(learner, f"/problems/{slug}/solutions")
    with_nul = [text for _family, text in PAYLOADS if "\x00" in text]
    assert with_nul, "the attempts hold a NUL, so the refusal below can be seen"
    assert not publish_editorial(author, slug, "\n\n---\n\n".join(with_nul))
    said = author.page.locator(".alert-error, [role=alert]").all_inner_texts()
    assert any("editorial.md" in s and "NUL" in s for s in said), said
    stored = publish_editorial(author, slug, "\n\n---\n\n".join(text for _family, text in EDITORIAL_PAYLOADS))
    said = author.page.locator(".alert-error, [role=alert]").all_inner_texts()
    assert stored, f"the editorial is published: {said}"
    view_everything(reader, [f"/problems/{slug}/editorial"])
    body = reader.page.locator("#editorial-body")
    assert "click me" in body.inner_text() and "A first editorial." not in body.inner_text()  # the new one
    click_user_links(reader, f"/problems/{slug}/editorial", "#editorial-body")
    view_everything(author, [f"/problems/{slug}/editorial"])
    assert reader.page.locator("main img[src^='http'], main img[src^='//']").count() == 0
