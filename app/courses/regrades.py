"""Regrades: re-judge an assignment problem's submissions on a newer version, dry run, then apply.

1. ``start`` copies every counted submit-mode submission of the course's students that ran on an
   older version of the problem and hands the copies to the normal dispatcher (embedded judge or
   the Celery runners). The copies belong to a system account that cannot log in, so they never
   show in a learner's history, solved marks, progress or rate limit; the run maps each original
   to its copy. Starting twice for the same (assignment, problem, version) returns the same run.
2. Once every copy is judged, the dry run compares each student's credit with and without the
   run's verdicts (:func:`app.courses.scoring.compute`), so it lists exactly what applying changes.
3. ``apply`` marks the run applied: scoring then reads the copies' verdicts instead of the
   originals'. "Never lower" stores the decreasing students' old credit as a floor. Applying twice
   changes nothing. Nothing in a learner's own submissions is ever rewritten.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import repository, scoring, visibility
from app.courses.assignments import assignment_problems
from app.courses.gradebook import display_name
from app.courses.models import Assignment, Course, Regrade
from app.kit.db import on_commit, utcnow
from app.kit.errors import Conflict, InvalidInput, NotFound
from app.problems import service as problems
from app.problems.models import Problem
from app.submissions.dispatch import Dispatcher
from app.submissions.models import FINISHED, QUEUED, Submission
from runner.verdict import Verdict

log = logging.getLogger(__name__)

JUDGE_EMAIL = "regrade-judge@torchdrill.invalid"
JUDGING, READY, APPLIED = "judging", "ready", "applied"


def judge_account(session: Session) -> User:
    """The account that owns re-judged copies; its password hash matches no password."""
    found = repository.get_user_by_email(session, JUDGE_EMAIL)
    if found is not None:
        return found
    try:
        with session.begin_nested():
            return repository.add(session, User(email=JUDGE_EMAIL, password_hash="!", role="student"))
    except IntegrityError:  # another request created it first
        found = repository.get_user_by_email(session, JUDGE_EMAIL)
        assert found is not None
        return found


def _problem_in(session: Session, assignment: Assignment, slug: str) -> Problem:
    try:
        problem = problems.get_for_course(session, slug, assignment.course_id)
    except NotFound:
        raise InvalidInput(f"There is no published problem called {slug[:80]!r}.") from None
    if problem.id not in {link.problem_id for link in assignment.problems}:
        raise InvalidInput(f"{slug[:80]!r} is not a problem of this assignment.")
    if problem.current_version_id is None:
        raise InvalidInput(f"{slug[:80]!r} has no published version.")
    return problem


def _stale_submissions(
    session: Session, course: Course, assignment: Assignment, problem: Problem, version_id: int
) -> list[Submission]:
    """Finished submits of active students that are the assignment's work (the one rule,
    :mod:`app.courses.visibility`) and that ran on another version: nothing else is copied."""
    students = [u.id for _, u in repository.active_students(session, course.id)]
    work = visibility.course_work(session, [assignment], students)
    return [
        s
        for s in repository.submit_submissions(session, students, [problem.id])
        if s.status == FINISHED
        and s.problem_version_id != version_id
        and work.counts_for(s.user_id, assignment.id, s.created_at)
    ]


def start(
    session: Session,
    dispatcher: Dispatcher,
    course: Course,
    assignment: Assignment,
    slug: str,
    actor: User,
) -> tuple[Regrade, bool]:
    """Start re-judging ``slug`` on its current version; (the run, whether it was created now)."""
    problem = _problem_in(session, assignment, slug)
    version_id = problem.current_version_id
    assert version_id is not None
    existing = repository.regrade_for(session, assignment.id, problem.id, version_id)
    if existing is not None:
        return existing, False
    try:
        with session.begin_nested():
            regrade = repository.add(
                session,
                Regrade(
                    assignment_id=assignment.id,
                    problem_id=problem.id,
                    version_id=version_id,
                    started_by_id=actor.id,
                    status=JUDGING,
                    copies={},
                ),
            )
    except IntegrityError:  # a concurrent start for the same target won
        again = repository.regrade_for(session, assignment.id, problem.id, version_id)
        assert again is not None
        return again, False
    judge = judge_account(session)
    now = utcnow()
    copies: dict[str, int] = {}
    for original in _stale_submissions(session, course, assignment, problem, version_id):
        copy = repository.add(
            session,
            Submission(
                user_id=judge.id,
                problem_id=problem.id,
                problem_version_id=version_id,
                mode="submit",
                code=original.code,
                status=QUEUED,
                created_at=now,
                idempotency_key=f"{scoring.REGRADE_KEY_PREFIX}{regrade.id}-{original.id}",
            ),
        )
        copies[str(original.id)] = copy.id
    regrade.copies = copies
    if not copies:
        regrade.status = READY
    session.flush()
    to_judge = list(copies.values())
    on_commit(session, lambda: _dispatch(dispatcher, to_judge))
    number = repository.version_numbers(session, [version_id]).get(version_id)
    log.info(
        "regrade %s started by user %s: course %s, assignment %s, problem %s, version %s (v%s), "
        "%d submissions to re-judge",
        regrade.id, actor.id, course.id, assignment.id, problem.slug, version_id, number, len(copies),
    )  # fmt: skip
    return regrade, True


def _dispatch(dispatcher: Dispatcher, submission_ids: list[int]) -> None:
    for submission_id in submission_ids:
        dispatcher.submit(submission_id)


def regrade_in(session: Session, assignment: Assignment, regrade_id: int) -> Regrade:
    regrade = repository.get_regrade(session, regrade_id)
    if regrade is None or regrade.assignment_id != assignment.id:
        raise NotFound(f"There is no regrade #{regrade_id} for this assignment.")
    return regrade


@dataclass(frozen=True)
class Change:
    user_id: int
    name: str
    email: str
    old: float  # the problem's credit, percent
    new: float
    assignment_old: float
    assignment_new: float
    kept: bool = False  # "never lower" kept the old, higher credit

    def as_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "name": self.name,
            "email": self.email,
            "old": self.old,
            "new": self.new,
            "assignment_old": self.assignment_old,
            "assignment_new": self.assignment_new,
            "kept": self.kept,
        }


@dataclass(frozen=True)
class Progress:
    judged: int
    total: int
    failed: int  # copies that ended in internal_error: flagged for review, and the run cannot be applied
    review: tuple[dict[str, int], ...] = ()  # {"submission_id": original, "copy_id": its copy}


def progress(session: Session, regrade: Regrade) -> Progress:
    copies = repository.submissions_by_ids(session, list(regrade.copies.values()))
    judged = [c for c in copies if c.status == FINISHED]
    failed_ids = {c.id for c in judged if c.verdict == Verdict.INTERNAL_ERROR}
    review = tuple(
        {"submission_id": int(original), "copy_id": copy_id}
        for original, copy_id in sorted(regrade.copies.items(), key=lambda item: int(item[0]))
        if copy_id in failed_ids
    )
    return Progress(judged=len(judged), total=len(regrade.copies), failed=len(failed_ids), review=review)


def status(regrade: Regrade, state: Progress) -> str:
    """A run whose copies are all judged is "ready" (derived, so reading never writes)."""
    if regrade.status == JUDGING and state.judged == state.total:
        return READY
    return regrade.status


def dry_run(session: Session, course: Course, assignment: Assignment, regrade: Regrade) -> list[Change]:
    """Every active student whose credit on the problem would change, from what to what."""
    if status(regrade, progress(session, regrade)) == JUDGING:
        return []
    students = list(repository.active_students(session, course.id))
    ids = [u.id for _, u in students]
    before = scoring.compute(session, [assignment], ids)
    after = scoring.compute(session, [assignment], ids, extra_regrade=regrade)
    changes = []
    for _, user in students:
        old, new = before[(user.id, assignment.id)], after[(user.id, assignment.id)]
        old_credit = old.problems.get(regrade.problem_id, 0.0)
        new_credit = new.problems.get(regrade.problem_id, 0.0)
        if old_credit != new_credit:
            changes.append(
                Change(
                    user.id,
                    display_name(user.email),
                    user.email,
                    old_credit,
                    new_credit,
                    old.percent,
                    new.percent,
                )
            )
    return changes


AppliedListener = Callable[[Session, Assignment], None]
_applied_listeners: list[AppliedListener] = []


def on_applied(listener: AppliedListener) -> None:
    """Call ``listener`` inside the transaction that applies a regrade (scores changed: LTI grade
    passback marks the assignment's students; it must only write rows and register ``on_commit``)."""
    if listener not in _applied_listeners:
        _applied_listeners.append(listener)


def apply(
    session: Session,
    course: Course,
    assignment: Assignment,
    regrade: Regrade,
    actor: User,
    *,
    never_lower: bool,
) -> Regrade:
    """Apply the dry run. Idempotent: an applied run is returned unchanged."""
    if regrade.status == APPLIED:
        return regrade
    state = progress(session, regrade)
    if status(regrade, state) != READY:
        raise Conflict("The regrade is still judging; apply it once every submission is re-judged.")
    if state.failed:  # applying would silently keep these students' old verdicts
        raise Conflict(
            f"{state.failed} re-judged submission(s) ended in internal_error (the platform failed, not the "
            "student) and need review: re-judge them (torchdrill submissions rejudge) before applying."
        )
    changes = dry_run(session, course, assignment, regrade)
    floors = {str(c.user_id): c.old for c in changes if never_lower and c.new < c.old}
    regrade.changes = [
        Change(**(c.as_dict() | {"kept": str(c.user_id) in floors})).as_dict() for c in changes
    ]
    regrade.floors = floors
    regrade.never_lower = never_lower
    regrade.status = APPLIED
    regrade.applied_by_id = actor.id
    regrade.applied_at = utcnow()
    session.flush()
    for listener in _applied_listeners:
        listener(session, assignment)
    log.info(
        "regrade %s applied by user %s: course %s, assignment %s, problem %s, version %s, "
        "never_lower=%s, %d scores changed, %d kept",
        regrade.id, actor.id, course.id, assignment.id, regrade.problem_id, regrade.version_id,
        never_lower, len(changes) - len(floors), len(floors),
    )  # fmt: skip
    return regrade


def view(session: Session, course: Course, assignment: Assignment, regrade: Regrade) -> dict[str, Any]:
    """The run as the API and the regrade page show it: progress and the (dry-run or applied) changes."""
    state = progress(session, regrade)
    current = status(regrade, state)
    problem = problems.problems_by_ids(session, {regrade.problem_id})
    slug = problem[0].slug if problem else None
    numbers = repository.version_numbers(session, [regrade.version_id])
    if current == APPLIED:
        changes = list(regrade.changes or [])
    else:
        changes = [c.as_dict() for c in dry_run(session, course, assignment, regrade)]
    return {
        "id": regrade.id,
        "course_id": course.id,
        "assignment_id": assignment.id,
        "problem": slug,
        "version_id": regrade.version_id,
        "version": numbers.get(regrade.version_id),
        "status": current,
        "judged": state.judged,
        "total": state.total,
        "failed": state.failed,
        "review": list(state.review),
        "changes": changes,
        "never_lower": regrade.never_lower,
        "started_by_id": regrade.started_by_id,
        "applied_by_id": regrade.applied_by_id,
        "created_at": regrade.created_at.isoformat(),
        "applied_at": regrade.applied_at.isoformat() if regrade.applied_at else None,
        "url": f"/courses/{course.id}/assignments/{assignment.id}/regrades/{regrade.id}",
    }


@dataclass(frozen=True)
class Candidate:
    """An assignment problem as the regrade page offers it."""

    slug: str
    title: str
    version: int | None
    stale: int  # counted submissions that ran on another version
    regrade_id: int | None  # the run for the current version, if started


def candidates(session: Session, course: Course, assignment: Assignment) -> list[Candidate]:
    linked = assignment_problems(session, assignment)
    numbers = repository.version_numbers(
        session, [p.current_version_id for p in linked if p.current_version_id is not None]
    )
    out = []
    for problem in linked:
        vid = problem.current_version_id
        if vid is None:
            continue
        run = repository.regrade_for(session, assignment.id, problem.id, vid)
        stale = len(_stale_submissions(session, course, assignment, problem, vid))
        out.append(Candidate(problem.slug, problem.title, numbers.get(vid), stale, run.id if run else None))
    return out
