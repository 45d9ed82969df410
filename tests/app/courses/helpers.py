"""Factories for course tests: users, stored submissions with chosen times and verdicts."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import sign_up
from app.problems.models import Problem
from app.submissions.models import Submission

PASSWORD = "correct horse battery"


def user(session: Session, role: str = "student", email: str | None = None) -> User:
    email = email or f"{role}-{uuid.uuid4().hex[:8]}@example.com"
    return sign_up(session, email, PASSWORD, role=role)


def problem(session: Session, slug: str) -> Problem:
    found = session.scalars(select(Problem).where(Problem.slug == slug)).one()
    return found


def stored_submit(
    session: Session, who: User, slug: str, at: datetime, verdict: str = "accepted", mode: str = "submit"
) -> Submission:
    """A finished submission as the recorder stores it, at a chosen time."""
    p = problem(session, slug)
    s = Submission(
        user_id=who.id,
        problem_id=p.id,
        problem_version_id=p.current_version_id,
        mode=mode,
        code="def f(): ...\n",
        status="finished",
        verdict=verdict,
        passed=1 if verdict == "accepted" else 0,
        total=1,
        cases=[],
        created_at=at,
        finished_at=at,
    )
    session.add(s)
    session.flush()
    return s
