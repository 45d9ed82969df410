"""Published solutions: publishing, reading (behind the unlock rule), votes, comments, deleting,
giving up, and the give-up counts instructors' analytics read.

Every route (pages, API, CLI through the API) calls these; the gates are in :func:`open_problem`:
the problem's visibility (404), its Premium gate (403 ``premium_required``), then the unlock rule
(:mod:`app.solutions.access`; 403 ``solutions_locked``). Every user-written text goes through
:func:`app.kit.user_text.check_user_text` (bounds) and is rendered by ``render_user_markdown``.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.kit.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.kit.limits import Quota
from app.kit.paging import decode_cursor, encode_cursor
from app.kit.user_text import check_user_text
from app.problems import service as problems
from app.problems.models import Problem
from app.progress import rules
from app.solutions import access, repository
from app.solutions.access import Opening
from app.solutions.models import GiveUp, Solution, SolutionComment
from app.solutions.views import CommentView, SolutionsState, SolutionView
from app.submissions import repository as submissions

log = logging.getLogger(__name__)

# Size bounds (docs/community.md lists them).
MAX_TITLE = 120
MAX_WRITE_UP = 20_000
MAX_COMMENT = 4_000
MAX_TAGS = 5
MAX_TAG = 30
PAGE_SIZE = 20
MAX_PAGE = 100
COMMENT_PAGE = 50  # a solution's page shows its comments this many at a time (keyset pages)


class SolutionsLocked(Forbidden):
    code = "solutions_locked"
    default_detail = "Solve this problem (or give up and show solutions) to read its solutions."


@dataclass(frozen=True)
class OpenProblem:
    problem: Problem
    opening: Opening


def visible_problem(session: Session, slug: str, user: User | None, now: datetime) -> Problem:
    """The problem behind its own gates: 404 if the reader may not know it, 403 for Premium."""
    problem = problems.get_published(session, slug, user, now, tags=False)
    problems.require_access(problem, user, now)
    return problem


def state(session: Session, slug: str, user: User | None, now: datetime) -> OpenProblem:
    problem = visible_problem(session, slug, user, now)
    return OpenProblem(problem, access.opening(session, problem, user, now))


def state_view(found: OpenProblem, editorial: bool) -> SolutionsState:
    o = found.opening
    return SolutionsState(problem=found.problem.slug, open=o.open, reason=o.reason, held_until=o.held_until,
                          gave_up_at=o.gave_up_at, editorial=editorial)  # fmt: skip


def refusal(opening: Opening) -> SolutionsLocked:
    if opening.reason == access.HELD and opening.held_until is not None:
        when = opening.held_until.strftime("%Y-%m-%d %H:%M UTC")
        return SolutionsLocked(
            f"Your course holds this problem's solutions until its assignment closes for you ({when})."
        )
    return SolutionsLocked()


def open_problem(session: Session, slug: str, user: User, now: datetime) -> OpenProblem:
    """The problem if ``user`` may read its solutions; 404 / 403 ``premium_required`` /
    403 ``solutions_locked`` otherwise."""
    found = state(session, slug, user, now)
    if not found.opening.open:
        raise refusal(found.opening)
    return found


def give_up(session: Session, user: User, slug: str, now: datetime) -> OpenProblem:
    """ "Give up and show solutions": recorded once, with its time; refused while a course holds them."""
    found = state(session, slug, user, now)
    if found.opening.reason == access.HELD:
        raise refusal(found.opening)
    if found.opening.reason == access.LOCKED:
        repository.add(session, GiveUp(user_id=user.id, problem_id=found.problem.id, created_at=now))
        log.info("user %s gave up on %s", user.id, found.problem.slug)
        found = OpenProblem(found.problem, access.Opening(access.GAVE_UP, gave_up_at=now))
    return found


# --- publishing -----------------------------------------------------------------------------------

_TAG_SPACE = re.compile(r"\s+")


def clean_tags(raw: Sequence[str]) -> list[str]:
    """Approach tags as stored: trimmed, spaces folded, lower-cased, unique; at most
    :data:`MAX_TAGS` of at most :data:`MAX_TAG` characters, no control characters."""
    out: list[str] = []
    for value in raw:
        tag = _TAG_SPACE.sub(" ", unicodedata.normalize("NFC", value)).strip().lower()
        if not tag:
            continue
        if any(unicodedata.category(ch).startswith("C") for ch in tag):
            raise InvalidInput(f"The tag {tag[:MAX_TAG]!r} holds a control character.")
        if len(tag) > MAX_TAG:
            raise InvalidInput(f"The tag {tag[:MAX_TAG]!r}… is {len(tag)} characters; at most {MAX_TAG}.")
        if tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise InvalidInput(f"At most {MAX_TAGS} tags; you gave {len(out)}.")
    return out


def publish(
    session: Session,
    user: User,
    slug: str,
    submission_id: int,
    title: str,
    write_up: str,
    tags: Sequence[str],
    now: datetime,
    *,
    limiter: Quota,
) -> Solution:
    """Publish one of ``user``'s own accepted submits on the problem, with a write-up and tags."""
    problem = visible_problem(session, slug, user, now)
    title = check_user_text(title, "The title", max_chars=MAX_TITLE).strip()
    if "\n" in title:
        raise InvalidInput("The title is one line.")
    write_up = check_user_text(write_up, "The write-up", max_chars=MAX_WRITE_UP)
    clean = clean_tags(tags)
    submission = submissions.get(session, submission_id)
    if submission is None or submission.user_id != user.id or submission.problem_id != problem.id:
        raise NotFound(f"You have no submission #{submission_id} on {problem.slug!r}.")
    if submission.is_copy or not rules.counts_as_solved(submission.mode, submission.verdict):
        raise InvalidInput("Only an accepted Submit can be published: submit a solution that passes first.")
    if repository.by_submission(session, submission.id) is not None:
        raise Conflict(f"Submission #{submission.id} is already published.")
    limiter.hit(user.id)
    solution = repository.add(
        session,
        Solution(problem_id=problem.id, author_id=user.id, submission_id=submission.id, title=title,
                 code=submission.code, write_up=write_up, votes=0, comments=0, created_at=now),
    )  # fmt: skip
    repository.set_tags(session, solution, clean)
    log.info("solution %s published by user %s on %s", solution.id, user.id, problem.slug)
    return solution


# --- reading --------------------------------------------------------------------------------------


def _readable(session: Session, user: User, solution_id: int, now: datetime) -> tuple[Solution, Problem]:
    """A solution its reader may see: 404 if it does not exist, was deleted, is hidden (to anybody
    but its author) or is on a problem the reader may not know; the problem's gates otherwise."""
    solution = repository.get(session, solution_id)
    missing = NotFound(f"There is no solution #{solution_id}.")
    if solution is None or solution.deleted_at is not None:
        raise missing
    if solution.hidden_at is not None and solution.author_id != user.id:
        raise missing
    problem = next(iter(problems.problems_by_ids(session, {solution.problem_id})), None)
    if problem is None:
        raise missing
    if solution.author_id == user.id:  # one's own: behind the problem's gates only
        visible_problem(session, problem.slug, user, now)
        return solution, problem
    open_problem(session, problem.slug, user, now)
    return solution, problem


def views(session: Session, rows: Sequence[Solution], slug: str, user: User) -> list[SolutionView]:
    ids = [s.id for s in rows]
    tags = repository.tags_of(session, ids)
    voted = repository.voted(session, user.id, ids)
    return [
        SolutionView.of(s, slug, tags.get(s.id, []), reader_id=user.id, voted=s.id in voted) for s in rows
    ]


def read(session: Session, user: User, solution_id: int, now: datetime) -> tuple[SolutionView, Problem]:
    solution, problem = _readable(session, user, solution_id, now)
    return views(session, [solution], problem.slug, user)[0], problem


def _sort(sort: str | None) -> str:
    sort = sort or repository.VOTES
    if sort not in repository.SORTS:
        raise InvalidInput(f"sort must be one of {', '.join(repository.SORTS)}.")
    return sort


def listing(
    session: Session,
    user: User,
    slug: str,
    now: datetime,
    *,
    sort: str | None,
    tag: str | None,
    after: str | None,
    limit: int = PAGE_SIZE,
) -> tuple[OpenProblem, list[SolutionView], str | None]:
    """A page of a problem's solutions (keyset: the cursor of the next page, or None)."""
    found = open_problem(session, slug, user, now)
    order = _sort(sort)
    wanted = clean_tags([tag])[0] if tag and tag.strip() else None
    shape: tuple[type, ...] = (int, int) if order == repository.VOTES else (int,)
    key = decode_cursor(after, shape) if after else None
    rows = repository.listing(session, found.problem.id, sort=order, tag=wanted, after=key, limit=limit + 1,
                              author_id=user.id)  # fmt: skip
    cursor = encode_cursor(repository.sort_key(rows[limit - 1], order)) if len(rows) > limit else None
    return found, views(session, rows[:limit], found.problem.slug, user), cursor


def tags(session: Session, problem: Problem) -> list[tuple[str, int]]:
    return repository.problem_tags(session, problem.id)


# --- votes, comments, deleting --------------------------------------------------------------------


def vote(session: Session, user: User, solution_id: int, up: bool, now: datetime) -> SolutionView:
    """Up-vote (``up``) or take one's vote back. One per reader; never one's own solution."""
    solution, problem = _readable(session, user, solution_id, now)
    if solution.author_id == user.id:
        raise Forbidden("You cannot vote for your own solution.")
    if up:
        repository.add_vote(session, solution.id, user.id, now)
    else:
        repository.remove_vote(session, solution.id, user.id)
    return views(session, [solution], problem.slug, user)[0]


def delete(session: Session, user: User, solution_id: int, now: datetime) -> None:
    """The author deletes their solution: gone from every listing, page and API answer."""
    solution = repository.get(session, solution_id)
    if solution is None or solution.deleted_at is not None or solution.author_id != user.id:
        raise NotFound(f"You have no solution #{solution_id}.")
    solution.deleted_at = now
    solution.submission_id = None  # the submission may be published again
    session.flush()
    repository.show_tags(session, solution)
    log.info("solution %s deleted by its author", solution.id)


def comments(
    session: Session, user: User, solution_id: int, now: datetime, *, after: str | None, limit: int = MAX_PAGE
) -> tuple[list[CommentView], str | None]:
    solution, _problem = _readable(session, user, solution_id, now)
    key = decode_cursor(after, (int,))[0] if after else None
    rows = repository.comments(session, solution.id, after=key, limit=limit + 1, author_id=user.id)
    cursor = encode_cursor((rows[limit - 1].id,)) if len(rows) > limit else None
    return [CommentView.of(c, reader_id=user.id) for c in rows[:limit]], cursor


def comment_url(session: Session, solution_id: int, comment_id: int) -> str:
    """The solution's page that shows the comment: the first page, or one starting at it."""
    anchor = f"#comment-{comment_id}"
    if repository.comments_before(session, solution_id, comment_id, COMMENT_PAGE) < COMMENT_PAGE:
        return f"/solutions/{solution_id}{anchor}"
    return f"/solutions/{solution_id}?after={encode_cursor((comment_id - 1,))}{anchor}"


def comment(
    session: Session,
    user: User,
    solution_id: int,
    body: str,
    now: datetime,
    *,
    limiter: Quota,
) -> SolutionComment:
    solution, _problem = _readable(session, user, solution_id, now)
    if solution.hidden_at is not None:
        raise Forbidden("This solution was hidden by a moderator; it takes no comments.")
    body = check_user_text(body, "The comment", max_chars=MAX_COMMENT)
    limiter.hit(user.id)
    row = repository.add(session, SolutionComment(solution_id=solution.id, author_id=user.id, body=body,
                                                  created_at=now))  # fmt: skip
    repository.count_comment(session, solution.id, +1)
    return row


def delete_comment(session: Session, user: User, comment_id: int, now: datetime) -> int:
    """The author deletes their comment; answers the solution's id."""
    row = repository.get_comment(session, comment_id)
    if row is None or row.deleted_at is not None or row.author_id != user.id:
        raise NotFound(f"You have no comment #{comment_id}.")
    if row.hidden_at is None:
        repository.count_comment(session, row.solution_id, -1)
    row.deleted_at = now
    session.flush()
    return row.solution_id


# --- for instructors' analytics -------------------------------------------------------------------


@dataclass(frozen=True)
class GiveUpRecord:
    problem_id: int
    user_id: int
    at: datetime


def give_ups(
    session: Session, problem_ids: Sequence[int] | None = None, user_ids: Sequence[int] | None = None
) -> list[GiveUpRecord]:
    """Who gave up on which problem and when ("give up and show solutions"), by problem then user."""
    return [
        GiveUpRecord(g.problem_id, g.user_id, g.created_at)
        for g in repository.give_ups(session, problem_ids, user_ids)
    ]


def give_up_counts(
    session: Session, problem_ids: Sequence[int] | None = None, user_ids: Sequence[int] | None = None
) -> dict[tuple[int, int], int]:
    """``{(problem_id, user_id): give-ups}`` (at most one each: giving up again changes nothing)."""
    counts: dict[tuple[int, int], int] = {}
    for g in give_ups(session, problem_ids, user_ids):
        counts[(g.problem_id, g.user_id)] = counts.get((g.problem_id, g.user_id), 0) + 1
    return counts
