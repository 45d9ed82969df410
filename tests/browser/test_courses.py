"""Classes in the browser: course, assignment, a student who joins and solves, gradebook, regrade."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ROOT, Server, Visit, Visits
from tests.browser.courses import create_assignment, create_course, field_time, join
from tests.browser.editor import bank_file, replace_code, wait_verdict

pytestmark = pytest.mark.browser

RIGHT = "import torch\n\n\ndef add(a, b):\n    return a + b\n"
ABS = "import torch\n\n\ndef add(a, b):\n    return a.abs() + b.abs()\n"


def both_themes(v: Visit, label: str) -> None:
    """Screenshots of the page in the light and the dark theme (tests/artifacts/*.png)."""
    for theme in ("light", "dark"):
        v.page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        v.screenshot(f"{label}-{theme}")


def submit(page: Page, slug: str, code: str, verdict: str) -> None:
    page.goto(f"/problems/{slug}")
    replace_code(page, code)
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, verdict)


def test_course_assignment_solve_gradebook_drill_down(visits: Visits, server: Server) -> None:
    teacher, learner = visits.new("instructor"), visits.new("student")
    student = server.new_account()
    teacher.login(server.new_account("instructor"), "/courses")
    title = f"Tensors {uuid.uuid4().hex[:4]}"
    course, code = create_course(teacher.page, title)
    week = create_assignment(teacher.page, course, "Week 1", "add-tensors", -timedelta(hours=1))
    later = create_assignment(teacher.page, course, "Later", "sum-of-squares", timedelta(days=3))

    learner.login(student, "/courses")
    join(learner.page, code, title)
    table = learner.page.locator("#assignment-table")
    expect(table).to_contain_text("Week 1")
    expect(table).not_to_contain_text("Later")  # not released yet
    learner.page.goto(later)
    expect(learner.page.get_by_role("heading", level=1)).to_contain_text("Not found")

    # an extension releases "Later" early for this student only: now it is theirs to see
    teacher.page.goto(later)
    teacher.page.get_by_label("Student").select_option(label=student)
    teacher.page.locator("#x-release").fill(field_time(-timedelta(minutes=5)))
    teacher.page.get_by_role("button", name="Save extension").click()
    expect(teacher.page.locator("#extension-table")).to_contain_text(student)
    learner.page.goto(course)
    expect(table).to_contain_text("Later")

    page = learner.page
    page.goto(week)
    expect(page.locator("#countdown")).to_have_text(re.compile(r"^(\d+ d )?\d\d:\d\d:\d\d$"))
    expect(page.locator("#credit-now")).to_contain_text("100 % (on time)")
    row = page.locator('#problem-status tr[data-slug="add-tensors"]')
    expect(row).to_contain_text("Not started")
    row.get_by_role("link").click()
    page.wait_for_url(re.compile(r"/problems/add-tensors\?assignment=\d+$"))  # its deadline and a way back
    replace_code(page, bank_file("add-tensors"))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Accepted")
    page.goto(week)
    expect(row).to_contain_text("Solved")
    expect(row).to_contain_text("100.0 %")
    expect(page.locator("#my-score")).to_have_text("100.0 %")
    both_themes(learner, "assignment")

    tpage = teacher.page
    tpage.goto(course)
    tpage.get_by_role("link", name="Gradebook").click()
    cell = tpage.locator("#gradebook tbody tr", has_text=student).locator("td.num").first
    expect(cell).to_have_text("100.0")
    both_themes(teacher, "gradebook")
    tpage.get_by_label("Search email").fill("nobody-matches-this")
    tpage.get_by_role("button", name="Filter").click()
    expect(tpage.locator("#gradebook")).to_contain_text("No students match")
    tpage.get_by_role("link", name="Clear").click()
    tpage.get_by_role("link", name=student).click()
    expect(tpage.get_by_role("heading", level=1)).to_have_text(student)
    attempt = tpage.locator("details.attempt").first
    attempt.locator("summary").click()
    expect(attempt).to_contain_text("Accepted")
    expect(attempt.locator("code")).to_contain_text("return a + b")


def _import(server: Server, bank: Path) -> None:
    env = {**os.environ, "TORCHDRILL_ENV": "development", "TORCHDRILL_DATABASE_URL": server.database.url}
    done = subprocess.run(
        [sys.executable, "-m", "app.problems.importer", str(bank)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, f"import failed:\n{done.stdout}\n{done.stderr}"


def test_regrade_dry_run_then_apply(visits: Visits, server: Server, tmp_path: Path) -> None:
    # v1's reference adds absolute values (a wrong test); v2 fixes it
    slug = f"browser-regrade-{uuid.uuid4().hex[:6]}"
    folder = tmp_path / slug
    shutil.copytree(
        ROOT / "tests/app/fixtures/bank/add-tensors", folder, ignore=shutil.ignore_patterns("mutants")
    )
    (folder / "solution.py").write_text(ABS)
    # A title of its own, and last among its track's related problems: other tests follow those links.
    toml = folder / "problem.toml"
    text = toml.read_text().replace('title = "Add Two Tensors"', f'title = "Regrade Probe {slug[-6:]}"')
    toml.write_text(
        text.replace('difficulty = "easy"', 'difficulty = "hard"').replace("order = 1\n", "order = 999\n")
    )
    _import(server, tmp_path)

    teacher, learner = visits.new("instructor"), visits.new("student")
    student = server.new_account()
    teacher.login(server.new_account("instructor"), "/courses")
    title = f"Regrades {uuid.uuid4().hex[:4]}"
    course, code = create_course(teacher.page, title)
    week = create_assignment(teacher.page, course, "Week 2", slug, -timedelta(hours=1))
    learner.login(student, "/courses")
    join(learner.page, code, title)
    submit(learner.page, slug, RIGHT, "Wrong Answer")  # right code, judged by the wrong v1

    (folder / "solution.py").write_text(RIGHT)
    _import(server, tmp_path)  # v2

    page = teacher.page
    page.goto(week)
    page.get_by_role("link", name="Regrade", exact=True).click()
    row = page.locator(f'#regrade-candidates tr[data-slug="{slug}"]')
    expect(row).to_contain_text("v2")
    row.get_by_role("button", name="Re-judge on v2").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Regrade of {slug} on v2")
    changes = page.locator("#regrade-changes")
    expect(changes).to_be_visible(timeout=60_000)  # the page polls, then shows the dry run
    expect(page.locator("#regrade-count")).to_have_text("1/1")
    expect(changes.locator("tbody tr")).to_have_count(1)
    expect(changes).to_contain_text(student)
    expect(changes).to_contain_text("0.0 → 100.0")
    both_themes(teacher, "regrade-dry-run")

    page.goto(f"{course}/gradebook")
    cell = page.locator("#gradebook tbody tr", has_text=student).locator("td.num").first
    expect(cell).to_have_text("0.0")  # the dry run changed nothing
    page.go_back()
    page.get_by_label(re.compile("Never lower")).check()
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#regrade-status")).to_contain_text("Applied")
    expect(page.get_by_role("heading", name="What changed")).to_be_visible()
    page.goto(f"{course}/gradebook")
    expect(cell).to_have_text("100.0")

    learner.page.goto("/account")
    expect(learner.page.locator("#my-courses")).to_contain_text(title)


def test_a_roster_invites_and_only_the_invited_account_accepts(visits: Visits, server: Server) -> None:
    teacher, learner, other = visits.new("instructor"), visits.new("student"), visits.new("other")
    invited, stranger = server.new_account(), server.new_account()
    teacher.login(server.new_account("instructor"), "/courses")
    title = f"Invited {uuid.uuid4().hex[:4]}"
    course, _code = create_course(teacher.page, title)
    teacher.page.get_by_label("…or paste it").fill(f"email\n{invited}\n")
    teacher.page.get_by_role("button", name="Invite", exact=True).click()
    expect(teacher.page.locator("#roster-report")).to_contain_text("Invited 1; skipped 0.")
    code = teacher.page.locator("#roster-report code").first.inner_text()

    other.login(stranger, f"/courses/join?code={code}")  # a forwarded invitation link
    other.page.get_by_role("button", name="Join").click()
    expect(other.page.locator("#course-error")).to_contain_text("another email address")
    other.page.goto(course)
    expect(other.page.get_by_role("heading", level=1)).to_contain_text("Not found")

    learner.login(invited, "/courses")
    invitation = learner.page.locator("#my-invitations li")
    expect(invitation).to_contain_text(title)
    both_themes(learner, "my-courses-invitation")
    invitation.get_by_role("button", name="Accept").click()
    expect(learner.page.get_by_role("heading", level=1)).to_have_text(title)
    both_themes(learner, "course-joined-by-invitation")
    learner.page.get_by_role("button", name="Leave course").click()
    expect(learner.page.locator("#notice")).to_contain_text(f"You left {title}")
    expect(learner.page.locator("#course-table")).not_to_contain_text(title)
