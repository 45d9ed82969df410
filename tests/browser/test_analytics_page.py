"""The analytics pages in Chromium: an instructor sees the class's progress and its failures as
charts, each named and backed by a table, follows a problem to its failing cases, and both pages
pass the axe checks."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app import analytics
from app.courses import enrolment, repository
from app.kit.db import utcnow
from app.problems.models import Problem
from app.submissions.models import Submission
from tests.browser.conftest import Server, Visits
from tests.browser.courses import create_assignment, create_course
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser
analytics.install()  # this process writes course work too (the server is another process)


def _failing(kind: str) -> list[dict[str, object]]:
    return [
        {"name": "example", "public": True, "status": "passed", "message": ""},
        {"name": "batch_of_one", "public": False, "status": "failed", "message": "",
         "failure": {"kind": kind, "title": kind}},
    ]  # fmt: skip


def _student_with_work(server: Server, join_code: str, verdicts: list[tuple[str, str]]) -> str:
    """A student who joined and then submitted: (verdict, failure kind) in order, a second apart."""
    email = server.new_account()
    now = utcnow()
    with server.database.transaction() as session:
        who = repository.get_user_by_email(session, email)
        assert who is not None
        problem = session.scalars(select(Problem).where(Problem.slug == "scale-rows")).one()
        for i, (verdict, kind) in enumerate(verdicts):
            at = now + timedelta(seconds=1 + i)
            accepted = verdict == "accepted"
            session.add(
                Submission(
                    user_id=who.id, problem_id=problem.id, problem_version_id=problem.current_version_id,
                    mode="submit", code="x = 1\n", status="finished", verdict=verdict,
                    passed=2 if accepted else 1, total=2, cases=[] if accepted else _failing(kind),
                    created_at=at, finished_at=at,
                )
            )  # fmt: skip
        session.flush()  # stored without a verdict's listener: the join counts them (joined at ``now``)
        enrolment.join(session, who, join_code, now)
    return email


def test_instructor_reads_the_class_at_a_glance(visits: Visits, server: Server) -> None:
    teacher = visits.new("teacher")
    teacher.login(server.new_account("instructor"), "/courses")
    page = teacher.page
    course_path, join_code = create_course(page, "Analytics class")
    assignment_path = create_assignment(page, course_path, "Rows", "scale-rows", timedelta(hours=-1))
    _student_with_work(server, join_code, [("wrong_answer", "shape"), ("accepted", "")])
    stuck = _student_with_work(server, join_code, [("wrong_answer", "values")] * 6)
    idle = server.new_account()
    with server.database.transaction() as session:
        who = repository.get_user_by_email(session, idle)
        assert who is not None
        enrolment.join(session, who, join_code, utcnow())

    page.goto(assignment_path)
    page.locator("#analytics-link").click()
    page.wait_for_url(re.compile(r"/analytics$"))
    expect(page.get_by_role("img", name=re.compile("solved, attempted or did not start"))).to_be_visible()
    expect(page.get_by_role("img", name=re.compile("Failed Submits per day"))).to_be_visible()
    row = page.locator('#analytics-problems tr[data-problem="scale-rows"]')
    expect(row).to_contain_text("2/3")  # attempted
    expect(row).to_contain_text("1/3")  # solved
    expect(page.locator("#stuck-table")).to_contain_text(stuck)
    page.locator("#not-started summary").click()
    expect(page.locator("#not-started")).to_contain_text(idle)
    page.get_by_text("Failure kinds by day, as a table").click()
    expect(page.locator("#kinds-table")).to_be_visible()
    assert not axe_findings(page), axe_findings(page)
    teacher.screenshot("assignment")

    row.get_by_role("link").click()
    page.wait_for_url(re.compile(r"/analytics/scale-rows$"))
    expect(page.get_by_role("img", name="Students failing each case")).to_be_visible()
    expect(page.locator("#cases-table")).to_contain_text("hidden · batch of one")
    assert not axe_findings(page), axe_findings(page)
    teacher.screenshot("problem")
