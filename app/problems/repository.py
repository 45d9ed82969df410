from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, bindparam, case, func, or_, select, tuple_
from sqlalchemy.orm import Session, lazyload

from app.problems.models import Problem, ProblemOwner, ProblemTag, ProblemVersion, Track
from app.progress import repository as progress

DIFFICULTY_RANK = {"easy": 0, "medium": 1, "hard": 2}
_DIFFICULTY_ORDER = case(DIFFICULTY_RANK, value=Problem.difficulty, else_=3)
# The one order of problems everywhere (list, filters, "More from", Next): the tracks' order, each
# track's own order (unnumbered problems last), then by category, difficulty and title for problems
# in no track. ListKey is where a problem sits in it, what a keyset cursor after it holds.
ListKey = tuple[
    int, int, int, str, int, str, int
]  # (track rank, unnumbered, position, category, difficulty, title, id)
NO_TRACK_RANK = 1_000_000  # after every track
_TRACK_RANK = func.coalesce(
    select(Track.position).where(Track.id == Problem.track_id).scalar_subquery(), NO_TRACK_RANK
)
_UNNUMBERED_LAST = case((Problem.position == 0, 1), else_=0)
_ONE_ORDER = (_TRACK_RANK, _UNNUMBERED_LAST, Problem.position, Problem.category, _DIFFICULTY_ORDER,
              Problem.title, Problem.id)  # fmt: skip


# What every public listing shows (lists, search, filters, tracks, related): published, live and
# site-wide. A course-only problem is never in one (``visibility.py``).
SITE_WIDE = (
    Problem.published.is_(True),
    Problem.current_version_id.is_not(None),
    Problem.course_only.is_(False),
)

_BY_SLUG = select(Problem).where(Problem.slug == bindparam("slug"))
# Without the tags' second query: they load if something reads them (submitting does not).
_BY_SLUG_NO_TAGS = _BY_SLUG.options(lazyload(Problem.tags))


def get_by_slug(session: Session, slug: str, *, tags: bool = True) -> Problem | None:
    return session.scalars(_BY_SLUG if tags else _BY_SLUG_NO_TAGS, {"slug": slug}).first()


def get_version(session: Session, version_id: int) -> ProblemVersion | None:
    return session.get(ProblemVersion, version_id)


_VERSIONS: Table = ProblemVersion.__table__  # type: ignore[assignment]
_PROBLEMS: Table = Problem.__table__  # type: ignore[assignment]
_VERSION_IDENTITY = (  # on the tables: columns only (``app.kit.db.prepared`` says why)
    select(_VERSIONS.c.content_hash, _PROBLEMS.c.slug)
    .join_from(_VERSIONS, _PROBLEMS, _PROBLEMS.c.id == bindparam("problem_id"))
    .where(_VERSIONS.c.id == bindparam("version_id"))
)


def version_identity(session: Session, version_id: int, problem_id: int) -> tuple[str, str] | None:
    """``(content_hash, problem slug)`` of a problem's version, without its files; None if either is gone."""
    row = session.execute(_VERSION_IDENTITY, {"version_id": version_id, "problem_id": problem_id}).first()
    return (row[0], row[1]) if row is not None else None


def version_content(session: Session, version_id: int) -> tuple[dict[str, str], dict[str, Any]] | None:
    """``(files, expectations)`` of a version (Core: no ORM instance), or None if it is gone."""
    stmt = select(ProblemVersion.files, ProblemVersion.expectations).where(ProblemVersion.id == version_id)
    row = session.execute(stmt).first()
    return (row[0], row[1]) if row is not None else None


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
    after: ListKey | None = None,
    limit: int | None = None,
) -> Sequence[Problem]:
    """Published problems in the one order (``_ONE_ORDER``); keyset-paged by ``after``."""
    stmt = select(Problem).where(*SITE_WIDE)
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
    if after is not None:
        stmt = stmt.where(tuple_(*_ONE_ORDER) > tuple_(*after))
    stmt = stmt.order_by(*_ONE_ORDER)
    return session.scalars(stmt.limit(limit) if limit is not None else stmt).all()


def _like(text: str) -> str:
    return "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def usable_in_course(session: Session, course_id: int, text: str | None, limit: int) -> Sequence[Problem]:
    """Published, live problems a course may put in assignments (site-wide, or course-only in this
    course: ``visibility.belongs_in``), matching ``text`` in the title or slug, in the one order,
    the course's own first."""
    stmt = select(Problem).where(
        Problem.published.is_(True),
        Problem.current_version_id.is_not(None),
        or_(Problem.course_only.is_(False), Problem.course_id == course_id),
    )
    if text:
        pattern = _like(text)
        stmt = stmt.where(
            or_(
                func.lower(Problem.title).like(pattern, escape="\\"),
                func.lower(Problem.slug).like(pattern, escape="\\"),
            )
        )
    stmt = stmt.order_by(Problem.course_only.desc(), *_ONE_ORDER).limit(limit)
    return session.scalars(stmt.options(lazyload(Problem.tags))).all()


def track_ranks(session: Session) -> dict[int, int]:
    """Each track's position (the first part of the one order), by track id."""
    return dict(session.execute(select(Track.id, Track.position)).tuples().all())


def list_key(problem: Problem, ranks: dict[int, int]) -> ListKey:
    """Where ``problem`` sits in the one order (``ranks``: ``track_ranks``): what a cursor after it holds."""
    rank = ranks.get(problem.track_id, NO_TRACK_RANK) if problem.track_id is not None else NO_TRACK_RANK
    return (rank, 1 if problem.position == 0 else 0, problem.position, problem.category,
            DIFFICULTY_RANK.get(problem.difficulty, 3), problem.title, problem.id)  # fmt: skip


def published_categories(session: Session) -> list[str]:
    stmt = select(Problem.category).where(*SITE_WIDE).distinct().order_by(Problem.category)
    return list(session.scalars(stmt))


def published_tags(session: Session) -> list[str]:
    stmt = (
        select(ProblemTag.tag)
        .join(Problem, Problem.id == ProblemTag.problem_id)
        .where(*SITE_WIDE)
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
            *SITE_WIDE,
        )
        .order_by(*_ONE_ORDER)
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
    stmt = select(Problem).where(Problem.track_id.in_(track_ids), *SITE_WIDE)
    return session.scalars(stmt.order_by(Problem.track_id, *_ONE_ORDER[1:])).all()


def first_of_next_track(session: Session, track: Track) -> Problem | None:
    """The first published problem of the tracks after ``track`` (where Next goes at a track's end)."""
    stmt = (
        select(Problem)
        .join(Track, Track.id == Problem.track_id)
        .where(Track.position > track.position, *SITE_WIDE)
        .order_by(Track.position, Track.id, *_ONE_ORDER[1:])
        .limit(1)
    )
    return session.scalars(stmt).first()


def add(session: Session, obj: Problem | ProblemVersion | Track) -> None:
    session.add(obj)
    session.flush()


def get_problem(session: Session, problem_id: int) -> Problem | None:
    return session.get(Problem, problem_id)


def problems_with_ids(session: Session, ids: set[int]) -> Sequence[Problem]:
    """The problems with these ids, in id order, in one query (plus their tags)."""
    if not ids:
        return []
    return session.scalars(select(Problem).where(Problem.id.in_(ids)).order_by(Problem.id)).all()


def acceptance_counts(session: Session, problem_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """``{problem_id: (accepted, judged)}`` over judged *submit*-mode submissions (runs don't count)."""
    return progress.acceptance_counts(session, problem_ids)


def solved_and_attempted(session: Session, user_id: int) -> dict[int, bool]:
    """``{problem_id: solved}`` for every problem the user ran or submitted anything for."""
    return progress.marks(session, user_id)


def owner_role(session: Session, problem_id: int, user_id: int) -> str | None:
    """ "author" / "coauthor" when the user owns the problem, else None."""
    stmt = select(ProblemOwner.role).where(
        ProblemOwner.problem_id == problem_id, ProblemOwner.user_id == user_id
    )
    return session.scalars(stmt).first()


def has_owners(session: Session, problem_id: int) -> bool:
    stmt = select(ProblemOwner.user_id).where(ProblemOwner.problem_id == problem_id).limit(1)
    return session.scalars(stmt).first() is not None
