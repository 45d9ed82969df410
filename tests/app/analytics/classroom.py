"""A small class for analytics tests: a course, an assignment, students, and verdicts recorded
through the real verdict path (``app.submissions.judging.record_verdict``)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import sign_up
from app.courses import assignments, enrolment
from app.courses.models import Assignment, Course
from app.kit.db import Database, utcnow
from app.submissions.judging import record_verdict
from app.submissions.models import Submission
from runner.jobs import CaseResult, JudgeResult
from tests.app.courses import helpers

PASSWORD = "correct horse battery"


def case(
    name: str, status: str = "passed", kind: str | None = None, rule: str = "", public: bool = False
) -> CaseResult:
    failure: dict[str, Any] | None = None
    if kind is not None:
        failure = {"kind": kind, "title": kind} | (
            {"rule": rule, "sentence": "s", "property": "values"} if rule else {}
        )
    return CaseResult(name=name, public=public, status=status, message="", failure=failure)


def result(verdict: str, cases: list[CaseResult]) -> JudgeResult:
    passed = sum(1 for c in cases if c.status == "passed")
    return JudgeResult(verdict=verdict, passed=passed, total=len(cases), cases=cases)


ACCEPTED = result("accepted", [case("example", public=True), case("batch_of_one"), case("broadcast")])


def wrong(*failing: tuple[str, str], rule: str = "") -> JudgeResult:
    """A wrong answer failing ``(case name, kind)`` pairs (the rule's id on kind ``rule``)."""
    names = {n for n, _ in failing}
    cases = [case("example", public=True)] + [
        case(n, "failed", kind, rule if kind == "rule" else "") for n, kind in failing
    ]
    cases += [case(n) for n in ("batch_of_one", "broadcast") if n not in names]
    return result("wrong_answer", cases)


@dataclass
class Classroom:
    db: Database
    course_id: int
    assignment_id: int
    teacher: User
    students: list[User] = field(default_factory=list)
    start: datetime = field(default_factory=utcnow)

    def course(self, session: Session) -> Course:
        found = session.get(Course, self.course_id)
        assert found is not None
        return found

    def assignment(self, session: Session) -> Assignment:
        found = session.get(Assignment, self.assignment_id)
        assert found is not None
        return found

    def submit(self, who: User, slug: str, minutes: float, mode: str = "submit") -> int:
        """A queued submission made ``minutes`` after the class started."""
        with self.db.transaction() as session:
            s = helpers.stored_submit(session, who, slug, self.start + timedelta(minutes=minutes), mode=mode)
            s.status, s.verdict, s.passed, s.total, s.cases, s.finished_at = (
                "queued",
                None,
                None,
                None,
                None,
                None,
            )
            session.flush()
            return s.id

    def record(self, submission_id: int, judged: JudgeResult) -> None:
        with self.db.transaction() as session:
            assert record_verdict(session, submission_id, judged) is not None

    def solve(
        self, who: User, slug: str, minutes: float, judged: JudgeResult = ACCEPTED, mode: str = "submit"
    ) -> int:
        submission_id = self.submit(who, slug, minutes, mode)
        self.record(submission_id, judged)
        return submission_id


def make_class(db: Database, students: int = 3, slugs: tuple[str, ...] = ("add-tensors", "scale-rows"),
               timezone: str = "UTC") -> Classroom:  # fmt: skip
    """A course whose assignment opened two days ago and is due in two; students joined a day ago."""
    now = utcnow()
    start = now - timedelta(days=1)
    with db.transaction() as session:
        teacher = sign_up(session, f"teacher-{uuid.uuid4().hex[:8]}@example.com", PASSWORD, role="instructor")
        course = enrolment.create_course(session, teacher, "Analytics", timezone=timezone)
        assignment = assignments.create_assignment(
            session, course, title="Week 1", problem_slugs=list(slugs),
            release_at=(now - timedelta(days=2)).isoformat(), due_at=(now + timedelta(days=2)).isoformat(),
        )  # fmt: skip
        room = Classroom(db, course.id, assignment.id, teacher, start=start)
        for i in range(students):
            who = sign_up(session, f"student{i}-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)
            enrolment.join(session, who, course.join_code, start)
            room.students.append(who)
        session.expunge_all()
    return room


def submission(db: Database, submission_id: int) -> Submission:
    with db.transaction() as session:
        found = session.get(Submission, submission_id)
        assert found is not None
        session.expunge(found)
        return found
