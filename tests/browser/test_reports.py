"""The report loop in Chromium: a learner reports a test as wrong from their submission's page, the
problem's owner answers on the reports page, fixes the problem (version 2), dry-runs and runs the
re-judge, and the learner sees the outcome on their submission page and in their mail. axe finds
nothing serious on any of these pages, in either theme."""

from __future__ import annotations

import re
import shutil
import time
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from app.accounts.service import get_user_by_email
from app.submissions.models import Submission
from tests.browser.conftest import ROOT, Server, Visit, Visits
from tests.browser.test_accessibility import axe_findings
from tests.browser.test_courses import ABS, RIGHT, _import, submit

pytestmark = pytest.mark.browser


def no_serious_axe_findings(v: Visit, state: str) -> None:
    found = {}
    for theme in ("light", "dark"):
        v.page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        problems = axe_findings(v.page)
        if problems:
            found[f"{state} [{theme}]"] = problems
        v.screenshot(f"{state}-{theme}")
    assert found == {}


def latest_submission(server: Server, email: str) -> int:
    with server.database.transaction() as session:
        user = get_user_by_email(session, email)
        found = session.scalars(
            select(Submission.id).where(Submission.user_id == user.id).order_by(Submission.id.desc())
        )
        return int(found.first() or 0)


def reload_until(page: Page, text: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in page.locator("#reports").inner_text():
        assert time.monotonic() < deadline, f"{text!r} never showed on {page.url}"
        page.wait_for_timeout(300)
        page.reload()


def test_report_answer_fix_rejudge_and_the_reporter_sees_it(
    visits: Visits, server: Server, tmp_path: Path
) -> None:
    # v1's reference adds absolute values (a wrong test); v2 fixes it.
    slug = f"browser-report-{uuid.uuid4().hex[:6]}"
    folder = tmp_path / slug
    shutil.copytree(
        ROOT / "tests/app/fixtures/bank/add-tensors", folder, ignore=shutil.ignore_patterns("mutants")
    )
    (folder / "solution.py").write_text(ABS)
    toml = folder / "problem.toml"
    text = toml.read_text().replace('title = "Add Two Tensors"', f'title = "Report Probe {slug[-6:]}"')
    # A title of its own, and last among its track's problems (not Next in the fixture track).
    toml.write_text(
        text.replace('difficulty = "easy"', 'difficulty = "hard"').replace("order = 1\n", "order = 999\n")
    )
    assert "order = 999\n" in toml.read_text()
    _import(server, tmp_path)

    learner, owner = visits.new("reporter"), visits.new("owner")
    student = server.new_account()
    learner.login(student, f"/problems/{slug}")
    submit(learner.page, slug, RIGHT, "Wrong Answer")  # right code, judged by the wrong v1
    submission_id = latest_submission(server, student)

    page = learner.page
    page.goto(f"/submissions/{submission_id}")
    page.get_by_text("Report a problem with a test").click()
    case = page.get_by_label("The test case you think is wrong")
    names = [o.strip() for o in case.locator("option").all_inner_texts()]
    assert names, "no failed case to report"
    case.select_option(names[0])
    page.get_by_label("What is wrong with it?").fill("a + b is what the statement asks for.")
    no_serious_axe_findings(learner, "report-form")
    page.get_by_role("button", name="Send the report").click()
    expect(page.locator("#report-notice")).to_contain_text("your report was sent")
    expect(page.locator("#reports .report")).to_contain_text("Not answered yet.")

    # The owner (the bank has no owners: an admin) answers on the problem's reports page.
    owner.login(server.accounts.author, f"/problems/{slug}/reports")
    report = owner.page.locator("#reports-page .report, .reports-page .report").first
    expect(report).to_contain_text(student)
    expect(report).to_contain_text("a + b is what the statement asks for.")
    no_serious_axe_findings(owner, "report-staff")
    report.get_by_label("Your answer to the learner").fill("Right: the reference was wrong. Fixed in v2.")
    report.get_by_label("Status").select_option("fixed")
    report.get_by_role("button", name="Answer").click()
    expect(owner.page.locator("#report-notice")).to_contain_text("answered")

    # The fix, published as version 2; then the dry run, then the re-judge.
    (folder / "solution.py").write_text(RIGHT)
    _import(server, tmp_path)
    owner.page.goto(f"/problems/{slug}/reports")
    owner.page.get_by_role("button", name="Dry run: what would be re-judged").click()
    plan = owner.page.locator("#rejudge-plan")
    expect(plan).to_contain_text(f"submission #{submission_id} (ran on v1)")
    expect(plan).to_contain_text("on v2")
    no_serious_axe_findings(owner, "report-dry-run")
    owner.page.get_by_role("button", name=re.compile(r"Re-judge 1 submission")).click()
    expect(owner.page.locator("#report-notice")).to_contain_text("Re-judging 1 reported submission on v2")

    # The reporter sees the outcome on their submission page, and has three mails: the answer, the
    # re-judge started, and its outcome.
    page.goto(f"/submissions/{submission_id}")
    reload_until(page, "Accepted")
    expect(page.locator("#reports")).to_contain_text("Re-judged on v2")
    expect(page.locator("#reports")).to_contain_text("Right: the reference was wrong. Fixed in v2.")
    expect(page.locator("#reports .report-status")).to_have_text("Fixed")
    no_serious_axe_findings(learner, "report-outcome")
    mails = server.smtp.wait_for(student, count=3, timeout=30)
    assert "answered: fixed" in mails[0]["Subject"]
    # The re-judge's start is mailed after its request commits and its outcome after the verdict's
    # commit: with a fast judge either may reach the mailbox first.
    later = sorted(str(m["Subject"]) for m in mails[1:])
    assert any("re-judged on version 2" in subject for subject in later), later
    assert any(subject.endswith(": Accepted on version 2") for subject in later), later
