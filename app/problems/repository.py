from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import case, column, func, or_, select, table
from sqlalchemy.orm import Session

from app.problems.models import Problem, ProblemTag, ProblemVersion, Track

_DIFFICULTY_ORDER = case({"easy": 0, "medium": 1, "hard": 2}, value=Problem.difficulty, else_=3)

# Learners' outcomes per problem come from the submissions table, named here as a lightweight table
# so the problems domain reads those few columns without importing the submissions domain.
_submissions = table(
    "submissions",
    *(column(name) for name in ("user_id", "problem_id", "mode", "status", "verdict")),
)


def get_by_slug(session: Session, slug: str) -> Problem | None:
    return session.scalars(select(Problem).where(Problem.slug == slug)).first()


def get_version(session: Session, version_id: int) -> ProblemVersion | None:
    return session.get(ProblemVersion, version_id)


def latest_version(session: Session, problem_id: int) -> ProblemVersion | None:
    stmt = (
        select(ProblemVersion)
        .where(ProblemVersion.problem_id == problem_id)
        .order_by(ProblemVersion.number.desc())
        .limit(1)
    )
    return session.scalars(stmt).first()


def list_published(
    session: Session,
    *,
    difficulty: str | None = None,
    category: str | None = None,
    tag: str | None = None,
    text: str | None = None,
) -> Sequence[Problem]:
    stmt = select(Problem).where(Problem.published.is_(True), Problem.current_version_id.is_not(None))
    if difficulty:
        stmt = stmt.where(Problem.difficulty == difficulty)
    if category:
        stmt = stmt.where(Problem.category == category)
    if tag:
        stmt = stmt.where(Problem.tags.any(ProblemTag.tag == tag))
    if text:
        pattern = "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        stmt = stmt.where(
            or_(
                func.lower(Problem.title).like(pattern, escape="\\"),
                func.lower(Problem.slug).like(pattern, escape="\\"),
                func.lower(Problem.category).like(pattern, escape="\\"),
                Problem.tags.any(func.lower(ProblemTag.tag).like(pattern, escape="\\")),
            )
        )
    return session.scalars(stmt.order_by(Problem.category, _DIFFICULTY_ORDER, Problem.title)).all()


def published_categories(session: Session) -> list[str]:
    stmt = select(Problem.category).where(Problem.published.is_(True)).distinct().order_by(Problem.category)
    return list(session.scalars(stmt))


def published_tags(session: Session) -> list[str]:
    stmt = (
        select(ProblemTag.tag)
        .join(Problem, Problem.id == ProblemTag.problem_id)
        .where(Problem.published.is_(True))
        .distinct()
        .order_by(ProblemTag.tag)
    )
    return list(session.scalars(stmt))


def related(session: Session, problem: Problem, limit: int = 5) -> Sequence[Problem]:
    stmt = (
        select(Problem)
        .where(
            Problem.category == problem.category,
            Problem.id != problem.id,
            Problem.published.is_(True),
            Problem.current_version_id.is_not(None),
        )
        .order_by(_DIFFICULTY_ORDER, Problem.title)
        .limit(limit)
    )
    return session.scalars(stmt).all()


def tracks(session: Session) -> Sequence[Track]:
    return session.scalars(select(Track).order_by(Track.position, Track.title)).all()


def get_track(session: Session, track_id: int) -> Track | None:
    return session.get(Track, track_id)


def track_by_slug(session: Session, slug: str) -> Track | None:
    return session.scalars(select(Track).where(Track.slug == slug)).first()


def track_by_title(session: Session, title: str) -> Track | None:
    return session.scalars(select(Track).where(Track.title == title)).first()


def track_problems(session: Session, track_ids: Sequence[int]) -> Sequence[Problem]:
    """The published problems of these tracks, each track's in its ``order`` (unnumbered ones last, by title)."""
    stmt = select(Problem).where(
        Problem.track_id.in_(track_ids), Problem.published.is_(True), Problem.current_version_id.is_not(None)
    )
    unnumbered_last = case((Problem.position == 0, 1), else_=0)  # order 0: after the numbered ones
    return session.scalars(
        stmt.order_by(Problem.track_id, unnumbered_last, Problem.position, Problem.title)
    ).all()


def add(session: Session, obj: Problem | ProblemVersion | Track) -> None:
    session.add(obj)
    session.flush()


def get_problem(session: Session, problem_id: int) -> Problem | None:
    return session.get(Problem, problem_id)


def acceptance_counts(session: Session, problem_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """``{problem_id: (accepted, judged)}`` over finished *submit*-mode submissions (runs don't count)."""
    if not problem_ids:
        return {}
    accepted = func.sum(case((_submissions.c.verdict == "accepted", 1), else_=0))
    stmt = (
        select(_submissions.c.problem_id, accepted, func.count())
        .where(
            _submissions.c.problem_id.in_(problem_ids),
            _submissions.c.mode == "submit",
            _submissions.c.status == "finished",
        )
        .group_by(_submissions.c.problem_id)
    )
    return {pid: (int(acc or 0), int(total)) for pid, acc, total in session.execute(stmt)}


def solved_and_attempted(session: Session, user_id: int) -> dict[int, bool]:
    """``{problem_id: solved}`` for every problem the user ran or submitted anything for."""
    solved = func.max(
        case(((_submissions.c.mode == "submit") & (_submissions.c.verdict == "accepted"), 1), else_=0)
    )
    stmt = (
        select(_submissions.c.problem_id, solved)
        .where(_submissions.c.user_id == user_id)
        .group_by(_submissions.c.problem_id)
    )
    return {pid: bool(flag) for pid, flag in session.execute(stmt)}
