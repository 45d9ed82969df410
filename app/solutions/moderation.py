"""The moderation adapter for solutions' kinds: ``solution``, ``solution_comment``, ``editorial``.

It follows the shared contract (``app.moderation.targets.ModerationTarget``): ``describe`` says what
a post is for the queue, ``set_hidden`` hides or shows it again. ``app.moderation`` sits above this
domain and registers :data:`TARGET` in its registry; the contract's ``TargetInfo`` is the one
import this module makes of it (an ``ignore_imports`` line of the layers contract, as for discussion's).

Hiding a solution makes it vanish from every listing, page, count and API answer but its author's
(marked "hidden by a moderator"); hiding a comment also takes it out of its solution's count; an
editorial's id is its problem's id.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.kit.db import utcnow
from app.moderation.targets import TargetInfo
from app.problems import service as problems
from app.problems.models import Problem
from app.solutions import editorial, repository

SOLUTION = "solution"
COMMENT = "solution_comment"
EDITORIAL = "editorial"
EXCERPT = 200


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


def _problem(session: Session, problem_id: int) -> Problem | None:
    return next(iter(problems.problems_by_ids(session, {problem_id})), None)


class SolutionTargets:
    kinds: tuple[str, ...] = (SOLUTION, COMMENT, EDITORIAL)

    def describe(self, session: Session, kind: str, target_id: int) -> TargetInfo | None:
        """What the post is (None: no such post, or deleted by its author)."""
        if kind == SOLUTION:
            solution = repository.get(session, target_id)
            problem = _problem(session, solution.problem_id) if solution else None
            if solution is None or solution.deleted_at is not None or problem is None:
                return None
            return TargetInfo(kind, solution.id, solution.author_id, problem.slug,
                              _excerpt(f"{solution.title}: {solution.write_up}"), f"/solutions/{solution.id}",
                              solution.hidden_at is not None)  # fmt: skip
        if kind == COMMENT:
            comment = repository.get_comment(session, target_id)
            parent = repository.get(session, comment.solution_id) if comment else None
            problem = _problem(session, parent.problem_id) if parent else None
            if comment is None or comment.deleted_at is not None or parent is None or problem is None:
                return None
            return TargetInfo(kind, comment.id, comment.author_id, problem.slug, _excerpt(comment.body),
                              f"/solutions/{parent.id}#comment-{comment.id}",
                              comment.hidden_at is not None)  # fmt: skip
        if kind == EDITORIAL:
            problem = _problem(session, target_id)
            if problem is None or problem.current_version_id is None:
                return None
            version = problems.current_version(session, problem)
            body = dict(version.files).get("editorial.md", "")
            if not body.strip():
                return None
            return TargetInfo(kind, problem.id, None, problem.slug, _excerpt(body),
                              f"/problems/{problem.slug}/editorial",
                              repository.editorial_hidden(session, problem.id) is not None)  # fmt: skip
        return None

    def set_hidden(self, session: Session, kind: str, target_id: int, hidden: bool) -> None:
        set_hidden(session, kind, target_id, hidden, utcnow())


def set_hidden(session: Session, kind: str, target_id: int, hidden: bool, now: datetime) -> None:
    if kind == SOLUTION:
        solution = repository.get(session, target_id)
        if solution is not None:
            solution.hidden_at = now if hidden else None
            repository.show_tags(session, solution)
    elif kind == COMMENT:
        comment = repository.get_comment(session, target_id)
        if comment is not None and (comment.hidden_at is not None) != hidden:
            comment.hidden_at = now if hidden else None
            if comment.deleted_at is None:
                repository.count_comment(session, comment.solution_id, -1 if hidden else +1)
    elif kind == EDITORIAL:
        editorial.set_hidden(session, target_id, hidden, now)
    session.flush()


TARGET = SolutionTargets()
