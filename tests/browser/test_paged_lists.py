"""The paged lists as a person uses them: "Older submissions" (loading, failing, the last page,
where the focus goes), the Next/First links of the gradebook, the drill-down, the tokens and the
admin's users, and no page wider than a phone. axe-core runs on the states these tests reach.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import Server, Visit, Visits
from tests.browser.lists import SLUG, Seeded, seed_lists, submissions
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser

OLDER_PAGES = re.compile(r"/submissions\?.*before=")
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def seeded(server: Server) -> Seeded:
    """120 students in a course, 60 tokens, 60 more accounts: each list has a second page."""
    return seed_lists(server.database, server.accounts.instructor)


def _assert_accessible(page: Page) -> None:
    """No serious or critical axe finding, in the light and in the dark theme."""
    for theme in ("dark", "light"):
        page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        assert not axe_findings(page), (theme, axe_findings(page))


def _ids(page: Page) -> list[int]:
    return [int(i) for i in page.locator("#history-list li[data-id]").evaluate_all(
        "rows => rows.map(r => r.dataset.id)")]  # fmt: skip


def _focused(page: Page) -> str:
    return str(page.evaluate("() => document.activeElement.textContent.trim()"))


def test_older_submissions_load_fail_retry_and_end_with_focus_on_the_new_rows(
    visits: Visits, server: Server
) -> None:
    email = server.new_account()
    made = submissions(server.database, email, 60)  # oldest first
    v = visits.new()
    page = v.page
    v.login(email, f"/problems/{SLUG}")
    older = page.get_by_role("button", name="Older submissions")
    status = page.locator("#history-status")
    assert _ids(page) == made[::-1][:20]

    # Loading: the button says so while the page is on its way (held here), and keeps the focus.
    held: list[Route] = []
    page.route(OLDER_PAGES, lambda route: held.append(route))
    older.focus()
    page.keyboard.press("Enter")
    expect(older).to_have_text("Loading older submissions…")
    expect(older).to_have_attribute("aria-disabled", "true")
    assert len(held) == 1
    held[0].continue_()
    page.unroute(OLDER_PAGES)
    expect(page.locator("#history-list li[data-id]")).to_have_count(40)
    assert _ids(page) == made[::-1][:40]  # in order, none twice
    expect(status).to_have_text("20 older submissions added.")
    # A keyboard user reads on from the first row added (#40 here), not from the top of the page.
    assert _focused(page) == f"#{made[::-1][20]}"
    expect(older).to_have_text("Older submissions")

    # A failed page: the button says so and stays; the rows stay; trying again continues.
    page.route(OLDER_PAGES, lambda route: route.abort())
    older.click()
    expect(older).to_have_text("Try again: older submissions")
    expect(status).to_contain_text("Could not load older submissions.")
    expect(status).to_have_class(re.compile(r"\berror\b"))
    assert _ids(page) == made[::-1][:40]
    _assert_accessible(page)
    v.screenshot("failed")
    page.unroute(OLDER_PAGES)
    older.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#history-list li[data-id]")).to_have_count(60)
    assert _ids(page) == made[::-1]
    # The last page: no button, a line that says it is all, focus on the first row it added.
    expect(older).to_be_hidden()
    expect(status).to_have_text("All 60 of your submissions are shown.")
    assert _focused(page) == f"#{made[::-1][40]}"
    v.screenshot("last")


def test_the_history_on_a_phone_is_as_wide_as_the_phone(visits: Visits, server: Server) -> None:
    email = server.new_account()
    submissions(server.database, email, 25)
    v = visits.new(viewport=PHONE)
    v.login(email, f"/problems/{SLUG}")
    v.page.get_by_role("button", name="Code", exact=True).click()
    v.page.get_by_role("button", name="Older submissions").click()
    expect(v.page.locator("#history-list li[data-id]")).to_have_count(25)
    _assert_fits(v.page)
    # Each row's actions sit on its first line, right of the verdict (not pushed under it).
    boxes = v.page.locator("#history-list li[data-id]").evaluate_all(
        """rows => rows.map(r => [r.querySelector('.history-meta a').getBoundingClientRect().top,
                                  r.querySelector('.load-btn').getBoundingClientRect().bottom])"""
    )
    assert all(link_top < load_bottom for link_top, load_bottom in boxes)


def _assert_fits(page: Page) -> None:
    """Nothing makes the page scroll sideways (a wide table scrolls inside its own box)."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{page.url}: the page is {width[0]} px wide in a {width[1]} px window"


def _walk(v: Visit, start: str, rows: str, next_link: str) -> list[list[str]]:
    """The rows' text on each page from ``start``, clicking ``next_link`` until it is gone."""
    page = v.page
    page.goto(start)
    pages = []
    while True:
        pages.append(page.locator(rows).all_inner_texts())
        _assert_fits(page)
        link = page.locator(next_link)
        if not link.count():
            return pages
        link.click()
        page.wait_for_load_state()


@pytest.fixture
def instructor(visits: Visits, server: Server) -> Iterator[Visit]:
    v = visits.new(viewport=PHONE)
    v.login(server.accounts.instructor, "/courses")
    yield v


def test_gradebook_next_and_first_links(instructor: Visit, seeded: Seeded) -> None:
    page = instructor.page
    book = f"/courses/{seeded.course_id}/gradebook"
    pages = _walk(instructor, book, "#gradebook tbody th[scope=row]", "#gradebook-next")
    assert [len(p) for p in pages] == [100, 21]
    emails = [e for p in pages for e in p]
    assert emails == sorted(emails) and len(set(emails)) == 121
    _assert_accessible(page)
    instructor.screenshot("gradebook-2", full_page=False)
    page.get_by_role("link", name="First students").click()
    expect(page.locator("#gradebook tbody th[scope=row]")).to_have_count(100)
    expect(page.locator("#gradebook-first")).to_have_count(0)
    # A filter is kept on the next page.
    page.get_by_label("Search email").fill("pupil")
    page.get_by_role("button", name="Filter").click()
    page.get_by_role("link", name="Next students").click()
    expect(page.get_by_label("Search email")).to_have_value("pupil")
    expect(page.locator("#gradebook tbody th[scope=row]")).to_have_count(20)


def test_drill_down_older_attempts(instructor: Visit, seeded: Seeded) -> None:
    page = instructor.page
    here = f"/courses/{seeded.course_id}/students/{seeded.learner_id}"
    pages = _walk(instructor, here, "details.attempt", "#attempts-older")
    shown = [int(i) for i in page.locator("details.attempt").evaluate_all(
        "rows => rows.map(r => r.dataset.submission)")]  # fmt: skip
    assert [len(p) for p in pages] == [50, 10] and shown == seeded.submission_ids[::-1][50:]
    expect(page.locator("#student-scores")).to_contain_text("Week 1: tensors")
    page.locator("details.attempt summary").first.click()
    _assert_accessible(page)
    page.get_by_role("link", name="Newest attempts").click()
    expect(page.locator("details.attempt")).to_have_count(50)


def test_older_tokens_and_next_users(visits: Visits, server: Server, seeded: Seeded) -> None:
    learner = visits.new("learner", viewport=PHONE)
    learner.login(seeded.learner, "/account")
    tokens = _walk(learner, "/account#tokens", "#token-list tr.token-row", "#tokens-older")
    assert [len(p) for p in tokens] == [50, 10]
    # Each Revoke says which token it revokes, and sits on its row.
    revoke = learner.page.get_by_role("button", name="Revoke token").first
    expect(revoke).to_have_accessible_name(re.compile(r"^Revoke token td_.*… laptop 9$"))
    row, button = revoke.evaluate(
        "b => [b.closest('tr').getBoundingClientRect().top, b.getBoundingClientRect().top]"
    )
    assert button - row < 12, (row, button)
    _assert_accessible(learner.page)
    admin = visits.new("admin", viewport=PHONE)
    admin.login(seeded.admin, "/admin")
    users = _walk(admin, "/admin", "#users tbody tr", "#users-next")
    assert len(users) >= 2 and len(users[0]) == 100
    _assert_accessible(admin.page)
    admin.screenshot("users-2", full_page=False)
