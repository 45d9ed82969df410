"""Learning paths: the tracks in order, each with its problems in order and the viewer's progress.

Composes the problems domain (tracks and their problems, the premium gate on each card) with the
submissions domain (which problems the viewer solved or attempted: ``submissions.service.marks``,
the one home of that rule). The pages, the API and the CLI all read the views built here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.kit.errors import NotFound
from app.problems import repository as problems_repository
from app.problems import service as problems
from app.problems.models import Problem, Track
from app.problems.service import ProblemCard
from app.submissions import service as submissions


@dataclass(frozen=True)
class TrackView:
    slug: str
    title: str
    description: str
    position: int
    problems: list[ProblemCard] = field(default_factory=list)  # in the track's order, with marks

    @property
    def total(self) -> int:
        return len(self.problems)

    @property
    def solved(self) -> int:
        return sum(c.mark == "solved" for c in self.problems)

    @property
    def attempted(self) -> int:
        """Problems with any submission, solved ones included (as the progress page counts)."""
        return sum(c.mark is not None for c in self.problems)

    @property
    def percent_solved(self) -> int:
        return round(100 * self.solved / self.total) if self.total else 0

    @property
    def next_problem(self) -> ProblemCard | None:
        """Where to continue: the first unsolved problem the viewer may work on (else the first unsolved)."""
        unsolved = [c for c in self.problems if c.mark != "solved"]
        return next((c for c in unsolved if not c.locked), unsolved[0] if unsolved else None)


@dataclass(frozen=True)
class Neighbours:
    """A problem's place in its track, for the problem page's previous / next links."""

    track_slug: str
    track_title: str
    position: int  # 1-based, among the track's published problems
    total: int
    previous: ProblemCard | None
    next: ProblemCard | None


def _views(session: Session, tracks: list[Track], viewer: User | None, now: datetime) -> list[TrackView]:
    listed = problems_repository.track_problems(session, [t.id for t in tracks])
    seen = problems.Outcomes(solved=submissions.marks(session, viewer))
    by_track: dict[int, list[ProblemCard]] = {t.id: [] for t in tracks}
    for problem in listed:
        if problem.track_id is not None:
            by_track[problem.track_id].append(problems.card(problem, viewer, now, seen))
    return [
        TrackView(
            slug=t.slug,
            title=t.title,
            description=t.description,
            position=t.position,
            problems=by_track[t.id],
        )
        for t in tracks
    ]


def list_tracks(session: Session, viewer: User | None, now: datetime) -> list[TrackView]:
    """Every track in order, with its published problems and the viewer's marks."""
    return _views(session, list(problems_repository.tracks(session)), viewer, now)


def start_here(session: Session, viewer: User | None, now: datetime) -> TrackView | None:
    """For a newcomer (nothing submitted yet): the first track with a problem, where to begin."""
    if viewer is not None and submissions.marks(session, viewer):
        return None
    for track in problems_repository.tracks(session):
        view = _views(session, [track], viewer, now)[0]
        if view.problems:
            return view
    return None


def get_track(session: Session, slug: str, viewer: User | None, now: datetime) -> TrackView:
    usable = len(slug) <= 60 and "\x00" not in slug  # never a slug; PostgreSQL refuses NUL in text
    track = problems_repository.track_by_slug(session, slug) if usable else None
    if track is None:
        raise NotFound(f"There is no track called {slug[:60]!r}.")
    return _views(session, [track], viewer, now)[0]


def neighbours(session: Session, problem: Problem, viewer: User | None, now: datetime) -> Neighbours | None:
    """The problems before and after ``problem`` in its track (None when it has no track)."""
    if problem.track_id is None:
        return None
    track = problems_repository.get_track(session, problem.track_id)
    if track is None:
        return None
    listed = list(problems_repository.track_problems(session, [track.id]))
    index = next((i for i, p in enumerate(listed) if p.id == problem.id), None)
    if index is None:  # an unpublished problem viewed by its author
        return None
    before = listed[index - 1] if index > 0 else None
    # Next: the track's order, then on to the first problem of the next track (the one order).
    after = listed[index + 1] if index + 1 < len(listed) else None
    if after is None:
        after = problems_repository.first_of_next_track(session, track)
    return Neighbours(
        track_slug=track.slug,
        track_title=track.title,
        position=index + 1,
        total=len(listed),
        previous=problems.card(before, viewer, now) if before is not None else None,
        next=problems.card(after, viewer, now) if after is not None else None,
    )
