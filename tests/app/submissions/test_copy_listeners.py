"""What runs when a re-judged copy's verdict is recorded (``verdict_listeners.on_copy_finished``):
once, in the verdict's transaction, only for copies of its key prefix — and a listener that fails never costs
the verdict."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.kit.db import Database
from app.problems.models import Problem
from app.submissions import judging, verdict_listeners
from app.submissions.models import COPY_KEY_PREFIX, Submission
from runner.jobs import CaseResult, JudgeResult
from runner.verdict import Verdict

PREFIX = f"{COPY_KEY_PREFIX}listener-test-"


@pytest.fixture
def heard() -> Iterator[list[int]]:
    ids: list[int] = []
    verdict_listeners.on_copy_finished(PREFIX, lambda session, row: ids.append(row.id))
    yield ids
    verdict_listeners.on_copy_finished(PREFIX, lambda session, row: None)


def _store(db: Database, email: str, key: str | None) -> int:
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        problem = session.scalars(select(Problem).where(Problem.slug == "add-tensors")).one()
        row = Submission(user_id=user.id, problem_id=problem.id, mode="submit", code="x = 1",
                         problem_version_id=problem.current_version_id, status="queued",
                         idempotency_key=key)  # fmt: skip
        session.add(row)
        session.flush()
        return row.id


def _record(db: Database, submission_id: int) -> bool:
    result = JudgeResult(verdict=Verdict.ACCEPTED, passed=1, total=1,
                         cases=[CaseResult(name="example", public=True, status="passed")])  # fmt: skip
    with db.transaction() as session:
        return judging.record_result(session, submission_id, result)


def _status(db: Database, submission_id: int) -> tuple[str, str | None]:
    with db.transaction() as session:
        row = session.get(Submission, submission_id)
        assert row is not None
        return row.status, row.verdict


def test_a_copy_is_heard_once_and_nothing_else_is(db: Database, learner, heard: list[int]) -> None:  # type: ignore[no-untyped-def]
    copy = _store(db, learner.email, f"{PREFIX}1")
    own = _store(db, learner.email, None)
    other_copy = _store(db, learner.email, f"{COPY_KEY_PREFIX}someone-else-1")
    for sid in (copy, own, other_copy):
        assert _record(db, sid)
    assert not _record(db, copy)  # recorded once: heard once
    assert heard == [copy]


def test_a_failing_listener_never_costs_the_verdict(db: Database, learner) -> None:  # type: ignore[no-untyped-def]
    def broken(session: Session, row: Submission) -> None:
        session.execute(select(Submission).where(Submission.id == row.id))
        raise RuntimeError("the mail server is on fire")

    verdict_listeners.on_copy_finished(PREFIX, broken)
    try:
        copy = _store(db, learner.email, f"{PREFIX}2")
        assert _record(db, copy)
    finally:
        verdict_listeners.on_copy_finished(PREFIX, lambda session, row: None)
    assert _status(db, copy) == ("finished", Verdict.ACCEPTED)
