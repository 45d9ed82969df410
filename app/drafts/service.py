"""Saving and restoring a learner's editor contents."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.drafts import repository
from app.drafts.models import CodeDraft
from app.kit.errors import NotFound, PayloadTooLarge
from app.problems import service as problems
from app.problems.models import Problem


def _problem_for(session: Session, user: User, slug: str, now: datetime) -> Problem:
    """Drafts follow the premium gate: no saved code for a problem the learner may not work on."""
    problem = problems.get_published(session, slug, user, now)
    problems.require_access(problem, user, now)
    return problem


def get_draft(session: Session, user: User, slug: str, now: datetime) -> CodeDraft:
    """The session user's draft; there is no way to name anybody else's, and none answers 404."""
    problem = _problem_for(session, user, slug, now)
    draft = repository.get(session, user.id, problem.id)
    if draft is None:
        raise NotFound(f"You have no saved draft for {slug!r}.")
    return draft


def save_draft(
    session: Session, user: User, slug: str, code: str, *, max_code_bytes: int, now: datetime
) -> CodeDraft:
    """Create or replace the draft (last write wins: the editor always sends its whole text)."""
    size = len(code.encode("utf-8"))
    if size > max_code_bytes:
        raise PayloadTooLarge(f"Your code is {size} bytes; the limit is {max_code_bytes} bytes.")
    problem = _problem_for(session, user, slug, now)
    draft = repository.get(session, user.id, problem.id)
    if draft is None:
        try:
            with session.begin_nested():
                return repository.add(
                    session, CodeDraft(user_id=user.id, problem_id=problem.id, code=code, updated_at=now)
                )
        except IntegrityError:  # a concurrent save (another tab) inserted first: update that row
            draft = repository.get(session, user.id, problem.id)
            if draft is None:
                raise
    draft.code = code
    draft.updated_at = now
    session.flush()
    return draft


def delete_draft(session: Session, user: User, slug: str, now: datetime) -> None:
    problem = _problem_for(session, user, slug, now)
    repository.remove(session, user.id, problem.id)


def saved_code(session: Session, user: User, problem: Problem) -> str | None:
    """The draft's code for the problem page, or None (the caller falls back to the last submission)."""
    draft = repository.get(session, user.id, problem.id)
    return draft.code if draft is not None else None


def to_view(draft: CodeDraft, slug: str) -> dict[str, Any]:
    return {"problem": slug, "code": draft.code, "updated_at": draft.updated_at.isoformat()}
