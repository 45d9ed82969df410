"""Submissions as learners make and see them (request side)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.kit.db import on_commit
from app.kit.errors import InvalidInput, NotFound, PayloadTooLarge
from app.kit.runner import display_value
from app.problems import repository as problems_repository
from app.problems import service as problems
from app.problems.models import Problem
from app.submissions import repository
from app.submissions.dispatch import Dispatcher
from app.submissions.models import FINISHED, MODES, Submission

VERDICT_LABELS = {
    "accepted": "Accepted",
    "wrong_answer": "Wrong Answer",
    "runtime_error": "Runtime Error",
    "time_limit_exceeded": "Time Limit Exceeded",
    "memory_limit_exceeded": "Memory Limit Exceeded",
    "output_limit_exceeded": "Output Limit Exceeded",
    "compile_error": "Compile Error",
    "internal_error": "Internal Error",
}


def create_submission(
    session: Session,
    dispatcher: Dispatcher,
    user: User,
    slug: str,
    code: str,
    mode: str,
    *,
    max_code_bytes: int,
    now: datetime,
) -> Submission:
    """Store a queued submission; it is handed to the dispatcher once the transaction commits."""
    if mode not in MODES:
        raise InvalidInput(f"mode must be 'run' or 'submit', not {mode!r}.")
    size = len(code.encode("utf-8"))
    if size > max_code_bytes:
        raise PayloadTooLarge(f"Your code is {size} bytes; the limit is {max_code_bytes} bytes.")
    if not code.strip():
        raise InvalidInput("The editor is empty: write your solution first.")
    problem = problems.get_published(session, slug)
    problems.require_access(problem, user, now)
    submission = repository.add(
        session,
        Submission(
            user_id=user.id,
            problem_id=problem.id,
            problem_version_id=problem.current_version_id,
            mode=mode,
            code=code,
            status="queued",
            created_at=now,
        ),
    )
    submission_id = submission.id
    on_commit(session, lambda: dispatcher.submit(submission_id))
    return submission


def get_own(session: Session, user: User, submission_id: int) -> Submission:
    """A submission of ``user``; anybody else's answers exactly like a missing one."""
    submission = repository.get(session, submission_id)
    if submission is None or submission.user_id != user.id:
        raise NotFound(f"There is no submission #{submission_id}.")
    return submission


def history(session: Session, user: User, problem: Problem, limit: int = 20) -> Sequence[Submission]:
    return repository.list_for(session, user.id, problem.id, limit)


def problem_of(session: Session, submission: Submission) -> Problem:
    problem = problems_repository.get_problem(session, submission.problem_id)
    if problem is None:
        raise NotFound("The problem of this submission no longer exists.")
    return problem


def is_finished(session: Session, submission_id: int) -> bool:
    session.expire_all()
    submission = repository.get(session, submission_id)
    return submission is None or submission.status == FINISHED


def _display(value: Any) -> str | None:
    """The runner sends public values as display text already; encoded values are rendered."""
    if value is None or isinstance(value, str):
        return value
    return display_value(value)


def _case_view(case: dict[str, Any]) -> dict[str, Any]:
    view = {
        "name": case.get("name", ""),
        "public": bool(case.get("public")),
        "status": case.get("status", ""),
        "message": case.get("message", ""),
        "time_ms": case.get("time_ms", 0.0),
    }
    if view["public"]:  # hidden cases never reveal values or output, even if a runner sent them
        view["expected"] = _display(case.get("expected"))
        view["actual"] = _display(case.get("actual"))
        view["stdout"] = case.get("stdout")
    return view


def to_view(submission: Submission, slug: str) -> dict[str, Any]:
    """The submission as the learner's page and the JSON API show it."""
    return {
        "id": submission.id,
        "problem": slug,
        "problem_version_id": submission.problem_version_id,
        "mode": submission.mode,
        "status": submission.status,
        "verdict": submission.verdict,
        "verdict_label": VERDICT_LABELS.get(submission.verdict or ""),
        "passed": submission.passed,
        "total": submission.total,
        "message": submission.message or "",
        "time_ms": submission.time_ms,
        "runtime": submission.runtime or {},
        "cases": [_case_view(c) for c in (submission.cases or [])],
        "created_at": submission.created_at.isoformat(),
        "started_at": submission.started_at.isoformat() if submission.started_at else None,
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
        "url": f"/submissions/{submission.id}",
    }


def summary_view(submission: Submission) -> dict[str, Any]:
    return {
        "id": submission.id,
        "mode": submission.mode,
        "status": submission.status,
        "verdict": submission.verdict,
        "verdict_label": VERDICT_LABELS.get(submission.verdict or ""),
        "passed": submission.passed,
        "total": submission.total,
        "created_at": submission.created_at.isoformat(),
        "url": f"/submissions/{submission.id}",
    }
