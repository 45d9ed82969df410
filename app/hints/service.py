"""Progressive hints: a problem's 1-3 hints (``hints`` in problem.toml), revealed one at a time and
remembered per learner, so a reload (or another device) shows the ones already asked for.

The premium gate applies: on a problem the viewer may not work on, nothing is revealed and asking
is refused exactly as running code is (``PremiumRequired``, 403). Signed-out visitors see how many
hints there are and are asked to sign in: a hint is only revealed when it can be remembered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.hints import repository
from app.hints.models import HintReveal
from app.kit.errors import Conflict
from app.problems import service as problems
from app.problems.models import Problem


@dataclass(frozen=True)
class HintsView:
    """What the viewer may see of a problem's hints."""

    revealed: list[str]  # Markdown, in order
    total: int
    locked: bool  # a Premium problem the viewer may not work on: nothing is revealed

    @property
    def remaining(self) -> int:
        return 0 if self.locked else self.total - len(self.revealed)


def _hints(session: Session, problem: Problem) -> tuple[str, ...]:
    return problems.version_files(problem.slug, problems.current_version(session, problem)).hints


def _view(session: Session, problem: Problem, viewer: User | None, now: datetime) -> HintsView:
    hints = _hints(session, problem)
    if not problems.can_work_on(problem, viewer, now):
        return HintsView(revealed=[], total=len(hints), locked=True)
    row = repository.get(session, viewer.id, problem.id) if viewer is not None else None
    count = min(row.revealed, len(hints)) if row is not None else 0  # a new version may have fewer
    return HintsView(revealed=list(hints[:count]), total=len(hints), locked=False)


def hints_for(session: Session, slug: str, viewer: User | None, now: datetime) -> HintsView:
    """The hints ``viewer`` has revealed on problem ``slug`` (none when anonymous or locked)."""
    return _view(session, problems.get_published(session, slug, viewer, now), viewer, now)


def reveal_next(session: Session, slug: str, viewer: User, now: datetime) -> HintsView:
    """Reveal the viewer's next hint; asking when all are revealed changes nothing."""
    problem = problems.get_published(session, slug, viewer, now)
    problems.require_access(problem, viewer, now)
    total = len(_hints(session, problem))
    if total == 0:
        raise Conflict("This problem has no hints.")
    if repository.get(session, viewer.id, problem.id) is None:
        try:
            with session.begin_nested():  # the same learner asking twice at once: one row wins
                repository.add(
                    session, HintReveal(user_id=viewer.id, problem_id=problem.id, revealed=0, updated_at=now)
                )
        except IntegrityError:
            pass  # the other request created it
    repository.reveal_one_more(session, viewer.id, problem.id, total, now)
    return _view(session, problem, viewer, now)
