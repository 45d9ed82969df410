"""The similarity pages in Chromium: an instructor finds the copied pair on top, opens it side by
side with the shared code highlighted, and both pages pass the axe checks."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.courses import enrolment, repository
from app.kit.db import utcnow
from app.problems.models import Problem
from app.submissions.models import Submission
from tests.app.courses.test_similarity import COPIED, SCALE_ROWS, renamed_and_reordered
from tests.browser.conftest import Server, Visits
from tests.browser.courses import create_assignment, create_course
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser


def _joined_with(server: Server, code: str, join_code: str) -> str:
    email = server.new_account()
    now = utcnow()
    with server.database.transaction() as session:
        who = repository.get_user_by_email(session, email)
        assert who is not None
        enrolment.join(session, who, join_code, now)
        problem = session.scalars(select(Problem).where(Problem.slug == "scale-rows")).one()
        at = now + timedelta(seconds=1)
        session.add(
            Submission(
                user_id=who.id, problem_id=problem.id, problem_version_id=problem.current_version_id,
                mode="submit", code=code, status="finished", verdict="accepted", passed=1, total=1,
                cases=[], created_at=at, finished_at=at,
            )
        )  # fmt: skip
    return email


def test_instructor_finds_the_copied_pair_and_sees_it_side_by_side(visits: Visits, server: Server) -> None:
    teacher = visits.new("teacher")
    teacher.login(server.new_account("instructor"), "/courses")
    page = teacher.page
    course_path, join_code = create_course(page, "Similarity class")
    assignment_path = create_assignment(page, course_path, "Rows", "scale-rows", timedelta(hours=-1))
    honest = [_joined_with(server, code, join_code) for code in SCALE_ROWS]
    first = _joined_with(server, COPIED, join_code)
    second = _joined_with(server, renamed_and_reordered(COPIED), join_code)
    assert honest

    page.goto(assignment_path)
    page.locator("#similarity-link").click()
    page.wait_for_url(re.compile(r"/similarity$"))
    top = page.locator("#similarity-pairs tbody tr").first
    expect(top).to_contain_text(first)
    expect(top).to_contain_text(second)
    assert not axe_findings(page), axe_findings(page)
    teacher.screenshot("ranked")

    top.get_by_role("link", name="Side by side").click()
    page.wait_for_url(re.compile(r"/similarity/scale-rows/\d+/\d+$"))
    expect(page.locator("pre.solution mark").first).to_be_visible()
    expect(page.locator("pre.solution").first).to_contain_text("<script>alert('pwned')</script>")
    assert not axe_findings(page), axe_findings(page)
    teacher.screenshot("side-by-side")
