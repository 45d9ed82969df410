"""Submissions as learners make and see them (request side)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.kit.db import on_commit
from app.kit.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    PremiumRequired,
    TooManyRequests,
)
from app.kit.paging import next_url
from app.problems import repository as problems_repository
from app.problems import service as problems
from app.problems.models import Problem
from app.progress import repository as progress_state
from app.submissions import limit, repository
from app.submissions.dispatch import Dispatcher
from app.submissions.gate import view_of
from app.submissions.models import CUSTOM, MODES, Submission
from app.submissions.views import SubmissionSummary, SubmissionView
from runner.format.inputs import InputError, check_arguments, read_arguments


def create_submission(
    session: Session,
    dispatcher: Dispatcher,
    user: User,
    slug: str,
    code: str,
    mode: str,
    *,
    max_code_bytes: int,
    per_minute: int,
    now: datetime,
    custom_text: str | None = None,
) -> Submission:
    """Store a queued submission; it is handed to the dispatcher once the transaction commits."""
    submission, _replayed = create_or_replay(
        session, dispatcher, user, slug, code, mode, max_code_bytes=max_code_bytes, now=now,
        custom_text=custom_text, per_minute=per_minute,
    )  # fmt: skip
    return submission


def _check_code(code: str, max_code_bytes: int) -> None:
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput("The code is not valid UTF-8 text (it contains lone surrogates).") from None
    if size > max_code_bytes:
        raise PayloadTooLarge(f"Your code is {size} bytes; the limit is {max_code_bytes} bytes.")
    if not code.strip():
        raise InvalidInput("The editor is empty: write your solution first.")
    if "\x00" in code:
        raise InvalidInput("The code contains a NUL character; remove it and try again.")


def custom_arguments(
    session: Session, problem: Problem, mode: str, given: Any, text: str | None = None
) -> dict[str, Any] | None:
    """The checked arguments of a custom run (``given`` decoded, or ``text`` as typed); None otherwise.

    Custom input is offered for problems that declare ``[example_input]`` (their entry point takes
    arguments that can be written as data); anything else is refused with the rule it broke.
    """
    if mode != CUSTOM:
        if given is not None or text is not None:
            raise InvalidInput("An input is only given with mode 'custom' (run with my input).")
        return None
    if problems.version_files(problem.slug, problems.current_version(session, problem)).example_input is None:
        raise InvalidInput(
            f"Problem {problem.slug!r} has no custom input: its entry point takes no arguments given as data."
        )
    if given is None and text is None:
        raise InvalidInput("mode 'custom' needs an input: the arguments by name, e.g. {\"x\": 1}.")
    try:
        return read_arguments(text) if text is not None else check_arguments(given)
    except InputError as exc:
        raise InvalidInput(str(exc)) from None


def _replay(
    existing: Submission, problem: Problem, code: str, mode: str, arguments: dict[str, Any] | None = None
) -> tuple[Submission, bool]:
    if (existing.problem_id, existing.mode, existing.code, existing.custom_input) != (
        problem.id,
        mode,
        code,
        arguments,
    ):
        raise Conflict(
            f"This Idempotency-Key was already used for submission #{existing.id} with a different "
            "problem, mode or code. Use a new key for a new submission."
        )
    return existing, True


def create_or_replay(
    session: Session,
    dispatcher: Dispatcher,
    user: User,
    slug: str,
    code: str,
    mode: str,
    *,
    max_code_bytes: int,
    now: datetime,
    idempotency_key: str | None = None,
    custom_input: Any = None,
    custom_text: str | None = None,
    per_minute: int,
) -> tuple[Submission, bool]:
    """Create a submission, or return the one made earlier with the same idempotency key (and True).

    A ``custom`` run carries the learner's arguments (``custom_input`` decoded, or ``custom_text``
    as typed: JSON or Python literals); it is judged against the reference on those arguments.
    A new submission (not a replay) is held to ``per_minute`` before it is inserted
    (:func:`limit.hold_to_rate`, atomic: call this in the transaction that commits the submission).
    """
    # The key is looked up only where a replay would be answered differently from a new
    # submission (over the rate, no access any more) or where the insert finds it taken: a new
    # submission costs no lookup.
    if mode not in MODES:
        raise InvalidInput(f"mode must be 'run', 'submit' or 'custom', not {mode!r}.")
    _check_code(code, max_code_bytes)
    problem = problems.get_published(session, slug, user, now, tags=False)
    arguments = custom_arguments(session, problem, mode, custom_input, custom_text)
    # The limit's gate is the transaction's first write (held to the commit): taken once the
    # request is known to be well-formed, so a bad one never waits behind it, nor it behind them.
    try:
        limit.hold_to_rate(session, user.id, per_minute, now)
    except TooManyRequests:
        existing = _earlier(session, user, idempotency_key)
        if existing is None:
            raise
        return _replay(existing, problem, code, mode, arguments)
    try:
        problems.require_access(problem, user, now)
    except PremiumRequired:
        existing = _earlier(session, user, idempotency_key)  # made while the learner had access
        if existing is None:
            raise
        return _replay(existing, problem, code, mode, arguments)
    submission = repository.insert_new(
        session,
        user_id=user.id,
        problem_id=problem.id,
        problem_version_id=problem.current_version_id,
        mode=mode,
        code=code,
        created_at=now,
        idempotency_key=idempotency_key,
        custom_input=arguments,
    )
    if submission is None:  # the key is taken: a retry (of a request that committed first)
        existing = _earlier(session, user, idempotency_key)
        if existing is None:
            raise Conflict("This Idempotency-Key is being used by another request; try again.")
        return _replay(existing, problem, code, mode, arguments)
    if not submission.is_copy:
        progress_state.record_attempt(session, user.id, problem.id, now)
    submission_id = submission.id
    on_commit(session, lambda: dispatcher.submit(submission_id))
    return submission, False


def _earlier(session: Session, user: User, idempotency_key: str | None) -> Submission | None:
    """The user's submission made with this idempotency key, if any."""
    if idempotency_key is None:
        return None
    return repository.get_by_idempotency_key(session, user.id, idempotency_key)


def list_own(
    session: Session,
    user: User,
    *,
    problem: Problem | None,
    verdict: str | None,
    before_id: int | None,
    limit: int,
) -> Sequence[Submission]:
    return repository.list_own(
        session,
        user.id,
        problem_id=problem.id if problem else None,
        verdict=verdict,
        before_id=before_id,
        limit=limit,
    )


def solved_problem_ids(session: Session, user: User | None) -> set[int]:
    return repository.solved_problem_ids(session, user.id) if user is not None else set()


def marks(session: Session, user: User | None) -> dict[int, bool]:
    """``{problem_id: solved}`` for every problem ``user`` has submitted anything to (none when anonymous).

    Solved means an accepted submit (``repository._accepted_submit``, the one rule); the rest were
    attempted. What the tracks page and ``progress`` count.
    """
    return dict(repository.attempts_by_problem(session, user.id)) if user is not None else {}


def has_accepted(session: Session, user: User | None, problem: Problem) -> bool:
    return user is not None and repository.has_accepted(session, user.id, problem.id)


@dataclass(frozen=True)
class ProgressRow:
    name: str
    solved: int
    attempted: int
    total: int


@dataclass(frozen=True)
class Progress:
    solved: int
    attempted: int
    total: int
    by_difficulty: list[ProgressRow]
    by_category: list[ProgressRow]


def progress(session: Session, user: User) -> Progress:
    """Solved (an accepted submit) and attempted (any submission) problems, by difficulty and category."""
    published = problems_repository.list_published(session)
    attempts = marks(session, user)
    tallies: dict[tuple[str, str], list[int]] = {}
    for problem in published:
        for key in (("difficulty", problem.difficulty), ("category", problem.category)):
            row = tallies.setdefault(key, [0, 0, 0])
            row[2] += 1
            if problem.id in attempts:
                row[1] += 1
                row[0] += int(attempts[problem.id])

    def rows(kind: str, order: Sequence[str]) -> list[ProgressRow]:
        names = [n for n in order if (kind, n) in tallies]
        return [ProgressRow(n, *tallies[(kind, n)]) for n in names]

    listed = [p for p in published if p.id in attempts]
    return Progress(
        solved=sum(1 for p in listed if attempts[p.id]),
        attempted=len(listed),
        total=len(published),
        by_difficulty=rows("difficulty", ("easy", "medium", "hard")),
        by_category=rows("category", sorted({p.category for p in published})),
    )


def get_own(session: Session, user: User, submission_id: int) -> Submission:
    """A submission of ``user``; anybody else's answers exactly like a missing one."""
    submission = repository.get(session, submission_id)
    if submission is None or submission.user_id != user.id:
        raise NotFound(f"There is no submission #{submission_id}.")
    return submission


HISTORY_PAGE = 20  # the problem page shows this many, then "Older submissions" loads as many more


@dataclass(frozen=True)
class History:
    """A page of a learner's submissions on a problem, newest first."""

    items: list[Submission]
    before: int | None  # the ``before`` id of the next (older) page; None when there is none


def history(
    session: Session, user: User, problem: Problem, *, before_id: int | None = None, limit: int = HISTORY_PAGE
) -> History:
    rows = repository.history_page(session, user.id, problem.id, before_id=before_id, limit=limit + 1)
    items = list(rows[:limit])
    return History(items, items[-1].id if len(rows) > limit else None)


def history_next(slug: str, page: History, limit: int = HISTORY_PAGE) -> str | None:
    """The URL of the page after ``page`` (the page script's "Older submissions"), or None."""
    before = str(page.before) if page.before is not None else None
    return next_url(f"/api/problems/{quote(slug)}/submissions", {"limit": limit}, before, "before")


def problem_of(session: Session, submission: Submission) -> Problem:
    problem = problems_repository.get_problem(session, submission.problem_id)
    if problem is None:
        raise NotFound("The problem of this submission no longer exists.")
    return problem


@dataclass(frozen=True)
class VersionLabel:
    """The version a submission ran, numbered as the authoring page numbers them ("v3")."""

    number: int | None
    live_number: int | None

    @property
    def is_live(self) -> bool:
        return self.number is not None and self.number == self.live_number


def version_label(session: Session, submission: Submission, problem: Problem) -> VersionLabel:
    ran = problems_repository.get_version(session, submission.problem_version_id)
    live = (
        problems_repository.get_version(session, problem.current_version_id)
        if problem.current_version_id is not None
        else None
    )
    return VersionLabel(
        number=ran.number if ran is not None else None,
        live_number=live.number if live is not None else None,
    )


def page_view(
    session: Session, viewer: User | None, submission: Submission, problem: Problem, now: datetime
) -> dict[str, Any]:
    """The submission as the learner's page and its JSON API show it (``gate.view_of``)."""
    return view_of(session, viewer, submission, problem, now).page_json()


def to_view(submission: Submission, slug: str) -> dict[str, Any]:
    """The whole view, without a viewer's gate: only for staff reading a course's work (the
    gradebook's drill-down; staff always have Premium, ``accounts.premium.is_premium``)."""
    return SubmissionView.of(submission, slug).page_json()


def summary_view(submission: Submission, slug: str = "") -> dict[str, Any]:
    """A history row (``views.SubmissionSummary``)."""
    return SubmissionSummary.of(submission, slug).model_dump(mode="json")
