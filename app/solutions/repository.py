"""Every query on the solutions tables (and the few course rows the hold reads)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses.models import ACTIVE, STUDENT, Assignment, AssignmentProblem, Course, CourseMember, Extension
from app.progress import rules
from app.solutions.models import (
    GiveUp,
    HiddenEditorial,
    Solution,
    SolutionComment,
    SolutionHold,
    SolutionTag,
    SolutionVote,
)
from app.submissions.models import Submission

VOTES = "votes"
NEWEST = "newest"
SORTS = (VOTES, NEWEST)


def live() -> Any:
    """Shown to readers: neither hidden by a moderator nor deleted by its author."""
    return and_(Solution.hidden_at.is_(None), Solution.deleted_at.is_(None))


def add(session: Session, row: Any) -> Any:
    session.add(row)
    session.flush()
    return row


def get(session: Session, solution_id: int) -> Solution | None:
    return session.get(Solution, solution_id)


def get_comment(session: Session, comment_id: int) -> SolutionComment | None:
    return session.get(SolutionComment, comment_id)


def by_submission(session: Session, submission_id: int) -> Solution | None:
    return session.scalars(select(Solution).where(Solution.submission_id == submission_id)).first()


def listing(
    session: Session,
    problem_id: int,
    *,
    sort: str,
    tag: str | None,
    after: tuple[Any, ...] | None,
    limit: int,
    author_id: int | None = None,
) -> Sequence[Solution]:
    """A page of a problem's live solutions (plus ``author_id``'s own hidden ones), keyset-ordered:
    by votes (votes, id descending) or newest (id descending)."""
    shown = live()
    if author_id is not None:
        shown = or_(shown, and_(Solution.author_id == author_id, Solution.deleted_at.is_(None)))
    stmt = select(Solution).where(Solution.problem_id == problem_id, shown)
    if tag is not None:
        stmt = stmt.join(
            SolutionTag, and_(SolutionTag.solution_id == Solution.id, SolutionTag.problem_id == problem_id)
        ).where(SolutionTag.tag == tag)
    if sort == VOTES:
        if after is not None:
            votes, last_id = after
            stmt = stmt.where(
                or_(Solution.votes < votes, and_(Solution.votes == votes, Solution.id < last_id))
            )
        stmt = stmt.order_by(Solution.votes.desc(), Solution.id.desc())
    else:
        if after is not None:
            stmt = stmt.where(Solution.id < after[0])
        stmt = stmt.order_by(Solution.id.desc())
    return session.scalars(stmt.limit(limit)).all()


def sort_key(solution: Solution, sort: str) -> tuple[int, ...]:
    return (solution.votes, solution.id) if sort == VOTES else (solution.id,)


def count_live(session: Session, problem_id: int) -> int:
    stmt = select(func.count()).select_from(Solution).where(Solution.problem_id == problem_id, live())
    return int(session.scalar(stmt) or 0)


def tags_of(session: Session, solution_ids: Sequence[int]) -> dict[int, list[str]]:
    if not solution_ids:
        return {}
    out: dict[int, list[str]] = {}
    stmt = select(SolutionTag.solution_id, SolutionTag.tag).where(SolutionTag.solution_id.in_(solution_ids))
    for sid, tag in session.execute(stmt.order_by(SolutionTag.solution_id, SolutionTag.tag)):
        out.setdefault(sid, []).append(tag)
    return out


def problem_tags(session: Session, problem_id: int) -> list[tuple[str, int]]:
    """The tags used on a problem's live solutions, with how many each (one index, no join)."""
    stmt = (
        select(SolutionTag.tag, func.count())
        .where(SolutionTag.problem_id == problem_id, SolutionTag.shown.is_(True))
        .group_by(SolutionTag.tag)
        .order_by(func.count().desc(), SolutionTag.tag)
        .limit(50)
    )
    return [(tag, int(n)) for tag, n in session.execute(stmt)]


def set_tags(session: Session, solution: Solution, tags: Sequence[str]) -> None:
    session.execute(delete(SolutionTag).where(SolutionTag.solution_id == solution.id))
    for tag in tags:
        session.add(SolutionTag(solution_id=solution.id, tag=tag, problem_id=solution.problem_id, shown=True))
    session.flush()


def show_tags(session: Session, solution: Solution) -> None:
    """Keep the tags' ``shown`` in step with the solution (after a hide, unhide or delete)."""
    shown = solution.hidden_at is None and solution.deleted_at is None
    session.execute(
        update(SolutionTag)
        .where(SolutionTag.solution_id == solution.id)
        .values(shown=shown)
        .execution_options(synchronize_session=False)
    )


def voted(session: Session, user_id: int, solution_ids: Sequence[int]) -> set[int]:
    if not solution_ids:
        return set()
    stmt = select(SolutionVote.solution_id).where(
        SolutionVote.user_id == user_id, SolutionVote.solution_id.in_(solution_ids)
    )
    return set(session.scalars(stmt))


def add_vote(session: Session, solution_id: int, user_id: int, now: datetime) -> bool:
    """Record the vote and count it, in the caller's transaction; False when it was already there."""
    if session.get(SolutionVote, (solution_id, user_id)) is not None:
        return False
    try:
        with session.begin_nested():
            session.add(SolutionVote(solution_id=solution_id, user_id=user_id, created_at=now))
            session.flush()
    except IntegrityError:  # the same vote, twice at once
        return False
    _bump(session, Solution.votes, solution_id, +1)
    return True


def remove_vote(session: Session, solution_id: int, user_id: int) -> bool:
    gone = session.execute(
        delete(SolutionVote).where(SolutionVote.solution_id == solution_id, SolutionVote.user_id == user_id)
    )
    if not getattr(gone, "rowcount", 0):
        return False
    _bump(session, Solution.votes, solution_id, -1)
    return True


def _bump(session: Session, column: Any, solution_id: int, by: int) -> None:
    """``column += by`` as one statement (concurrent voters never lose a count)."""
    session.execute(
        update(Solution)
        .where(Solution.id == solution_id)
        .values({column: column + by})
        .execution_options(synchronize_session=False)
    )
    solution = session.get(Solution, solution_id)
    if solution is not None:
        session.refresh(solution, [column.key])


def count_comment(session: Session, solution_id: int, by: int) -> None:
    _bump(session, Solution.comments, solution_id, by)


def comments_before(session: Session, solution_id: int, comment_id: int, cap: int) -> int:
    """How many comments of the solution come before ``comment_id``, counted up to ``cap`` only."""
    first = (
        select(SolutionComment.id)
        .where(SolutionComment.solution_id == solution_id, SolutionComment.id < comment_id)
        .limit(cap)
        .subquery()
    )
    return int(session.scalar(select(func.count()).select_from(first)) or 0)


def comments(
    session: Session, solution_id: int, *, after: int | None, limit: int, author_id: int | None = None
) -> Sequence[SolutionComment]:
    """A solution's live comments, oldest first (plus ``author_id``'s own hidden ones)."""
    shown = and_(SolutionComment.hidden_at.is_(None), SolutionComment.deleted_at.is_(None))
    if author_id is not None:
        shown = or_(shown, and_(SolutionComment.author_id == author_id, SolutionComment.deleted_at.is_(None)))
    stmt = select(SolutionComment).where(SolutionComment.solution_id == solution_id, shown)
    if after is not None:
        stmt = stmt.where(SolutionComment.id > after)
    return session.scalars(stmt.order_by(SolutionComment.id).limit(limit)).all()


def users_by_ids(session: Session, ids: set[int]) -> dict[int, User]:
    if not ids:
        return {}
    return {u.id: u for u in session.scalars(select(User).where(User.id.in_(ids)))}


# --- give-ups -------------------------------------------------------------------------------------


def gave_up(session: Session, user_id: int, problem_id: int) -> GiveUp | None:
    return session.get(GiveUp, (user_id, problem_id))


def give_ups(
    session: Session, problem_ids: Sequence[int] | None, user_ids: Sequence[int] | None
) -> Sequence[GiveUp]:
    stmt = select(GiveUp)
    if problem_ids is not None:
        stmt = stmt.where(GiveUp.problem_id.in_(problem_ids))
    if user_ids is not None:
        stmt = stmt.where(GiveUp.user_id.in_(user_ids))
    return session.scalars(stmt.order_by(GiveUp.problem_id, GiveUp.user_id)).all()


# --- assignment holds -----------------------------------------------------------------------------


def hold(session: Session, assignment_id: int) -> SolutionHold | None:
    return session.get(SolutionHold, assignment_id)


def held_assignments_of_student(
    session: Session, user_id: int, problem_id: int
) -> Sequence[tuple[Course, Assignment, Extension | None]]:
    """Held assignments holding the problem in courses where the user is an active student, each
    with the student's extension (if any)."""
    stmt = (
        select(Course, Assignment, Extension)
        .join(Assignment, Assignment.course_id == Course.id)
        .join(SolutionHold, SolutionHold.assignment_id == Assignment.id)
        .join(AssignmentProblem, AssignmentProblem.assignment_id == Assignment.id)
        .join(CourseMember, CourseMember.course_id == Course.id)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == user_id))
        .where(
            AssignmentProblem.problem_id == problem_id,
            CourseMember.user_id == user_id,
            CourseMember.role == STUDENT,
            CourseMember.status == ACTIVE,
        )
    )
    return [(c, a, e) for c, a, e in session.execute(stmt).all()]


# --- editorial ------------------------------------------------------------------------------------


def editorial_hidden(session: Session, problem_id: int) -> HiddenEditorial | None:
    return session.get(HiddenEditorial, problem_id)


# --- the reader's own submissions (publishing, "compare with mine") -----------------------------


def accepted_submits(
    session: Session, user_id: int, problem_id: int, limit: int = 20
) -> Sequence[Submission]:
    """The user's accepted Submits on the problem, newest first (what may be published)."""
    stmt = (
        select(Submission)
        .where(
            Submission.user_id == user_id,
            Submission.problem_id == problem_id,
            rules.solved_sql(Submission.mode, Submission.verdict),
        )
        .order_by(Submission.id.desc())
        .limit(limit)
    )
    return [s for s in session.scalars(stmt) if not s.is_copy]


def latest_submission(session: Session, user_id: int, problem_id: int) -> Submission | None:
    stmt = (
        select(Submission)
        .where(Submission.user_id == user_id, Submission.problem_id == problem_id)
        .order_by(Submission.id.desc())
        .limit(5)
    )
    return next((s for s in session.scalars(stmt) if not s.is_copy), None)


def published_submission_ids(session: Session, submission_ids: Sequence[int]) -> set[int]:
    if not submission_ids:
        return set()
    stmt = select(Solution.submission_id).where(
        Solution.submission_id.in_(submission_ids), Solution.deleted_at.is_(None)
    )
    return {sid for sid in session.scalars(stmt) if sid is not None}
