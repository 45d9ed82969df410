"""An author (an admin: a site-wide problem) creates, validates and publishes a problem in the browser;
a student then solves it. Instructors' problems are course-only: tests/app/authoring/test_ownership.py."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server, Visits
from tests.browser.editor import bank_file, replace_code, wait_verdict

pytestmark = pytest.mark.browser

SOURCE = "forward-hook-activations"  # a bank problem, re-authored under a new slug through the UI
TITLE = "Capture Activations (browser)"


def fill_code(page: Page, field_id: str, code: str) -> None:
    """Replace a code field: its CodeMirror editor when JS built one, else the plain textarea."""
    host = page.locator(f'.code-host[data-for="{field_id}"] .cm-content')
    if host.count():
        host.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(code)
    else:
        page.locator(f"#{field_id}").fill(code)


def test_instructor_publishes_a_problem_that_a_student_solves(visits: Visits, server: Server) -> None:
    slug = f"browser-add-{uuid.uuid4().hex[:6]}"
    teacher = visits.new("instructor")
    page = teacher.page
    teacher.login(server.accounts.author, "/authoring")
    page.goto("/authoring/new")
    page.get_by_label("Slug").fill(slug)
    page.get_by_label("Title").fill(TITLE)
    page.get_by_label("Difficulty").select_option("easy")
    page.get_by_label("Track", exact=True).select_option("PyTorch Advanced")
    page.get_by_label("Tags").fill("hooks, forward")
    page.get_by_label("Entry point").fill("forward_hook_test")
    page.locator("#f-statement").fill(bank_file(SOURCE, "statement.md"))
    page.locator("#f-learn").fill(bank_file(SOURCE, "learn.md"))
    fill_code(page, "f-starter", bank_file(SOURCE, "starter.py"))
    fill_code(page, "f-solution", bank_file(SOURCE, "solution.py"))
    fill_code(page, "f-tests", bank_file(SOURCE, "tests.py"))
    page.locator("#f-mutant-1").fill("hook_not_removed")  # breaks the statement's one rule
    fill_code(page, "f-mutant-code-1", bank_file(SOURCE, "mutants/hook_not_removed.py"))
    page.get_by_role("button", name="Create draft").click()  # a draft is stored unvalidated
    page.wait_for_url(re.compile(rf"/authoring/problems/{slug}"))
    expect(page.locator("#status")).to_contain_text("never published")
    # The form offers one new mutant a save: the rule's cheat, then a mutant with wrong values.
    for number, name in ((2, "cheat_pre_hook_on_the_relu"), (3, "hook_after_relu")):
        page.locator(f"#f-mutant-{number}").fill(name)
        fill_code(page, f"f-mutant-code-{number}", bank_file(SOURCE, f"mutants/{name}.py"))
        page.locator("#save-btn").click()
        expect(page.locator(f"#f-mutant-{number + 1}")).to_have_count(1, timeout=30_000)
    expect(page.locator("#status")).to_contain_text("never published")  # Save kept it a draft

    page.get_by_role("button", name="Validate").click()  # in the sandbox, before publishing
    expect(page.locator("#report-body .report-ok")).to_contain_text("PASS", timeout=60_000)
    matrix = page.get_by_role("table", name="Kill matrix: which case rejects which mutant")
    expect(matrix.get_by_role("row", name=re.compile("hook_after_relu"))).to_contain_text("x")
    page.get_by_role("button", name="Publish").click()
    page.wait_for_url(re.compile(rf"/authoring/problems/{slug}\?notice=published"), timeout=60_000)
    expect(page.locator("#status")).to_contain_text("Published")
    teacher.screenshot()

    student = visits.new("student")
    student.login(server.accounts.student, f"/problems?q={slug}")
    student.page.get_by_role("link", name=TITLE).click()
    expect(student.page.get_by_role("heading", level=1)).to_have_text(TITLE)
    replace_code(student.page, bank_file(SOURCE, "solution.py"))
    student.page.keyboard.press("Control+Shift+Enter")  # Submit from the keyboard
    wait_verdict(student.page, "Accepted — 6/6 passed")
    student.screenshot()
