"""A problem's working copy as its authors read it: the draft if there is one, else the live
version (:class:`Workspace`, what the editor shows), and the files of either for an export.

Every read goes through :func:`get_problem` (``ownership.editable``: owners and admins only),
except the operator's export (``torchdrill problems export``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring import archive, ownership, repository
from app.kit.errors import NotFound
from app.problems import repository as problems_repository
from app.problems.models import Problem, ProblemVersion

Source = Literal["working", "draft", "live"]


def get_problem(session: Session, slug: str, user: User) -> Problem:
    """The problem, if ``user`` may edit it (``ownership.editable``: 403 or 404 otherwise)."""
    return ownership.editable(session, slug, user)


def live_version_of(session: Session, problem: Problem) -> ProblemVersion | None:
    if problem.current_version_id is None:
        return None
    return problems_repository.get_version(session, problem.current_version_id)


@dataclass(frozen=True)
class Workspace:
    """What the editor shows: the working copy and where it comes from."""

    problem: Problem
    files: dict[str, str]
    source: Literal["draft", "live"]
    live_version: int | None
    draft_base_version: int | None
    versions: list[tuple[int, int, datetime]]

    @property
    def stale(self) -> bool:
        """The draft was started from an older version than the live one (e.g. a newer import)."""
        return (
            self.source == "draft"
            and self.live_version is not None
            and (self.draft_base_version != self.live_version)
        )

    @property
    def has_draft(self) -> bool:
        return self.source == "draft"


def workspace(session: Session, slug: str, user: User) -> Workspace:
    return workspace_of(session, get_problem(session, slug, user))


def workspace_of(session: Session, problem: Problem) -> Workspace:
    draft = repository.get_draft(session, problem.id)
    live = live_version_of(session, problem)
    history = repository.version_history(session, problem.id)
    numbers = {vid: number for vid, number, _ in history}
    if draft is not None:
        base = numbers.get(draft.base_version_id) if draft.base_version_id is not None else None
        return Workspace(problem, dict(draft.files), "draft", live.number if live else None, base, history)
    if live is None:
        raise NotFound(f"Problem {problem.slug!r} has neither a draft nor a version.")
    return Workspace(problem, dict(live.files), "live", live.number, None, history)


def export_files(session: Session, slug: str, user: User, source: Source = "live") -> dict[str, str]:
    """The files of the live version, of the draft, or of whichever the editor shows (working)."""
    return _files_of(session, get_problem(session, slug, user), source)


def export_files_as_operator(session: Session, slug: str, source: Source = "live") -> dict[str, str]:
    """:func:`export_files` for ``torchdrill problems export``, run on the server with the database's
    own credentials (an operator, above every site role): it reads, never changes."""
    problem = problems_repository.get_by_slug(session, slug)
    if problem is None:
        raise NotFound(f"There is no problem called {slug[:80]!r}.")
    return _files_of(session, problem, source)


def _files_of(session: Session, problem: Problem, source: Source) -> dict[str, str]:
    slug = problem.slug
    if source == "live":
        live = live_version_of(session, problem)
        if live is None:
            raise NotFound(f"Problem {slug!r} has no published version yet; export its draft instead.")
        return dict(live.files)
    if source == "draft":
        draft = repository.get_draft(session, problem.id)
        if draft is None:
            raise NotFound(f"Problem {slug!r} has no draft; export its live version instead.")
        return dict(draft.files)
    return workspace_of(session, problem).files


def export_zip(session: Session, slug: str, user: User, source: Source = "working") -> bytes:
    return archive.to_zip(slug, export_files(session, slug, user, source))
