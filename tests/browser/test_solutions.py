"""Published solutions in Chromium: a learner solves (the real judge), publishes with a write-up,
another learner is refused (page and API) until they solve, then votes and comments, a non-solver is
refused until they give up, then reads them; "compare with mine" and the editorial. axe finds nothing
serious on any new page."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.accounts.models import User
from app.solutions.models import GiveUp
from tests.browser.conftest import Server, Visit, Visits
from tests.browser.courses import create_assignment, create_course
from tests.browser.solutions_world import RIGHT, scratch_problem
from tests.browser.test_accessibility import axe_findings
from tests.browser.test_courses import submit

pytestmark = pytest.mark.browser

WRONG = "import torch\n\n\ndef add(a, b):\n    return a - b\n"
EDITORIAL = "## Approaches\n\nElement-wise addition, $O(n)$.\n\n## Pitfalls\n\nBroadcasting silently.\n"


def axe_clean(v: Visit, state: str, found: dict[str, list[str]]) -> None:
    for theme in ("light", "dark"):
        v.page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        problems = axe_findings(v.page)
        if problems:
            found[f"{state} [{theme}]"] = problems
        v.screenshot(f"{state}-{theme}")


def test_solve_publish_vote_comment_and_a_non_solver_gives_up(
    visits: Visits, server: Server, tmp_path: Path
) -> None:
    slug = scratch_problem(server, tmp_path, EDITORIAL, "solutions")
    findings: dict[str, list[str]] = {}

    author = visits.new("author")
    author.login(server.new_account(), f"/problems/{slug}")
    submit(author.page, slug, RIGHT, "Accepted")
    page = author.page
    page.locator("#solutions-link").click()
    page.wait_for_url(re.compile(rf"/problems/{slug}/solutions$"))
    page.get_by_text("Publish your solution").click()
    page.get_by_label("Title").fill("One plus, no loop")
    page.get_by_label("Write-up").fill("Tensors add **element-wise**: $c_i = a_i + b_i$.")
    page.get_by_label("Approach tags").fill("Element-wise, one-liner")
    axe_clean(author, "publish-form", findings)
    page.get_by_role("button", name="Publish").click()
    page.wait_for_url(re.compile(r"/solutions/\d+$"))
    solution_url = page.url
    expect(page.locator("#write-up strong")).to_have_text("element-wise")
    expect(page.locator("#write-up math")).to_have_count(1)
    expect(page.locator("#solutions-notice")).to_contain_text("published")
    axe_clean(author, "solution-own", findings)

    solver = visits.new("solver")
    solver.login(server.new_account(), f"/problems/{slug}")
    spage = solver.page
    # Refused (page and API) until they solve it: then the same page and API open.
    assert spage.request.get(f"/api/v1/problems/{slug}/solutions").status == 403
    spage.goto(f"/problems/{slug}/solutions")
    expect(spage.locator("#solutions-locked")).to_be_visible()
    expect(spage.locator("#solution-list")).to_have_count(0)
    submit(spage, slug, RIGHT, "Accepted")
    assert spage.request.get(f"/api/v1/problems/{slug}/solutions").status == 200
    spage.goto(f"/problems/{slug}/solutions")
    expect(spage.locator("#solution-list li")).to_have_count(1)
    axe_clean(solver, "solutions-list", findings)
    spage.get_by_role("link", name="One plus, no loop").click()
    spage.get_by_role("button", name="Up-vote").click()
    expect(spage.locator("#vote-count")).to_have_text("1")
    expect(spage.locator("#vote-button")).to_have_attribute("aria-pressed", "true")
    spage.get_by_label("Add a comment").fill("Why not `torch.add`?")
    spage.get_by_role("button", name="Comment", exact=True).click()
    expect(spage.locator(".comment-body code")).to_have_text("torch.add")
    expect(spage.locator("#comments-title")).to_have_text("1 comment")
    axe_clean(solver, "solution-voted", findings)
    spage.get_by_role("link", name="Compare with mine").click()
    expect(spage.locator("#diff-summary")).to_contain_text("are the same")
    axe_clean(solver, "compare", findings)
    spage.goto(f"/problems/{slug}/solutions")
    spage.locator("#editorial-link").click()
    expect(spage.locator("#editorial-body h2").first).to_have_text("Approaches")
    axe_clean(solver, "editorial", findings)

    stranger = visits.new("non-solver")
    email = server.new_account()
    stranger.login(email, f"/problems/{slug}")
    submit(stranger.page, slug, WRONG, "Wrong Answer")
    npage = stranger.page
    api = npage.request.get(f"/api/v1/problems/{slug}/solutions")
    assert api.status == 403 and api.json()["error"] == "solutions_locked"
    assert npage.request.get(f"/api/v1/problems/{slug}/editorial").status == 403
    assert npage.goto(solution_url).status == 403  # type: ignore[union-attr]
    npage.goto(f"/problems/{slug}/solutions")
    expect(npage.locator("#solutions-locked")).to_be_visible()
    expect(npage.locator("#solution-list")).to_have_count(0)
    axe_clean(stranger, "locked", findings)
    npage.get_by_role("button", name="Give up and show solutions").click()
    expect(npage.locator("#solution-list li")).to_have_count(1)
    expect(npage.locator("#gave-up-note")).to_be_visible()
    assert npage.request.get(f"/api/v1/problems/{slug}/solutions").status == 200
    with server.database.transaction() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        assert session.scalars(select(GiveUp).where(GiveUp.user_id == user.id)).one().created_at is not None

    # The author deletes it: gone for the others.
    page.goto(solution_url)
    page.get_by_role("button", name="Delete my solution").click()
    page.wait_for_url(re.compile(rf"/problems/{slug}/solutions$"))
    assert spage.goto(solution_url).status == 404  # type: ignore[union-attr]
    assert findings == {}


def test_an_instructor_holds_an_assignments_solutions_and_the_page_is_accessible(
    visits: Visits, server: Server
) -> None:
    """The solution-hold page (/assignments/{id}/solution-hold): reached from the assignment, turned
    on and off, axe-clean in both themes and both states."""
    findings: dict[str, list[str]] = {}
    teacher = visits.new("hold-teacher")
    teacher.login(server.new_account("instructor"), "/courses")
    course, _code = create_course(teacher.page, f"Holds {uuid.uuid4().hex[:4]}")
    assignment = create_assignment(teacher.page, course, "Week 1", "add-tensors", -timedelta(hours=1))
    page = teacher.page
    page.goto(assignment)
    page.locator("#solution-hold-link").click()
    page.wait_for_url(re.compile(r"/assignments/\d+/solution-hold$"))
    expect(page.locator("#hold-state")).to_contain_text("Not held")
    axe_clean(teacher, "solution-hold-off", findings)
    page.locator("#hold-toggle").click()
    expect(page.locator("#hold-state")).to_contain_text("Held until the deadline")
    expect(page.locator("#solutions-notice")).to_be_visible()
    axe_clean(teacher, "solution-hold-on", findings)
    page.locator("#hold-toggle").click()
    expect(page.locator("#hold-state")).to_contain_text("Not held")
    assert findings == {}
