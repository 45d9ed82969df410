"""Rows enough for every paged list to need a second page (browser tests and scripts/screenshots.py).

Made straight through the services and models, in one transaction per list: a learner's stored
submissions, a course of students with an assignment, API tokens and plain accounts. The extra
accounts share one password hash (hashing each would only cost time).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from app.accounts.models import User
from app.accounts.service import get_user_by_email, sign_up
from app.accounts.tokens import create_token
from app.courses import assignments, enrolment, repository
from app.courses.models import STUDENT, CourseMember, EnrolmentPeriod
from app.kit.db import Database, utcnow
from tests.app.courses.helpers import stored_submit
from tests.browser.conftest import PASSWORD

SLUG = "add-tensors"


@dataclass(frozen=True)
class Seeded:
    learner: str  # has the submissions and the tokens, and is in the course
    admin: str
    course_id: int
    learner_id: int
    submission_ids: list[int]  # oldest first


def accounts(db: Database, count: int, prefix: str, role: str = "student") -> list[int]:
    """``count`` accounts ``prefix-NNN-tag@example.com`` (ids in email order) that can log in."""
    tag = uuid.uuid4().hex[:6]
    with db.transaction() as session:
        model = sign_up(session, f"{prefix}-model-{tag}@example.com", PASSWORD, role=role)
        users = [
            User(email=f"{prefix}-{i:03d}-{tag}@example.com", password_hash=model.password_hash, role=role)
            for i in range(count)
        ]
        session.add_all(users)
        session.flush()
        return [u.id for u in users]


def submissions(db: Database, email: str, count: int, slug: str = SLUG) -> list[int]:
    """``count`` finished submissions of ``email`` on ``slug``, a second apart, oldest first."""
    with db.transaction() as session:
        who = get_user_by_email(session, email)
        start = utcnow() - timedelta(hours=2)
        verdicts = ("accepted", "wrong_answer", "runtime_error")
        return [
            stored_submit(session, who, slug, start + timedelta(seconds=i), verdicts[i % 3]).id
            for i in range(count)
        ]


def tokens(db: Database, email: str, count: int) -> None:
    with db.transaction() as session:
        who = get_user_by_email(session, email)
        for i in range(count):
            create_token(session, who, f"laptop {i}", utcnow() - timedelta(minutes=count - i))


def course(db: Database, instructor: str, students: int, also: list[int]) -> int:
    """A course of ``instructor`` with ``students`` new students (sections A/B), the ``also`` ids
    enrolled too (all of them since a day ago), and one assignment on SLUG released a day ago."""
    ids = accounts(db, students, "pupil")
    with db.transaction() as session:
        owner = get_user_by_email(session, instructor)
        made = enrolment.create_course(session, owner, f"Paged course {uuid.uuid4().hex[:4]}")
        now = utcnow()
        for n, uid in enumerate(ids + also):
            section = "A" if n % 2 else "B"
            repository.add(
                session, CourseMember(course_id=made.id, user_id=uid, role=STUDENT, section=section)
            )
            repository.add(
                session, EnrolmentPeriod(course_id=made.id, user_id=uid, joined_at=now - timedelta(days=1))
            )
        assignments.create_assignment(
            session,
            made,
            title="Week 1: tensors",
            problem_slugs=[SLUG],
            release_at=(now - timedelta(days=1)).isoformat(),
            due_at=(now + timedelta(days=6)).isoformat(),
        )
        return made.id


def seed_lists(db: Database, instructor: str, *, history: int = 60, students: int = 120,
               token_count: int = 60, users: int = 60) -> Seeded:  # fmt: skip
    """Every paged list with a second page: see the module's docstring."""
    tag = uuid.uuid4().hex[:6]
    learner, admin = f"aaa-learner-{tag}@example.com", f"admin-{tag}@example.com"
    with db.transaction() as session:
        learner_id = sign_up(session, learner, PASSWORD).id
        sign_up(session, admin, PASSWORD, role="admin")
    ids = submissions(db, learner, history)
    tokens(db, learner, token_count)
    accounts(db, users, "user")
    course_id = course(db, instructor, students, [learner_id])
    return Seeded(learner, admin, course_id, learner_id, ids)
