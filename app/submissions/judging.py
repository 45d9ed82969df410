"""Worker-side steps of judging: load the job, run it, record the verdict exactly once.

These functions own their transactions (a worker has no request), so a Celery task can call
:func:`judge_submission` unchanged. A crash between the steps leaves the submission
queued/running, and :func:`recover_unfinished` hands it to the dispatcher again on startup.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.orm import Session

from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.problems import repository as problems_repository
from app.problems.service import version_files
from app.progress import repository as progress
from app.submissions import repository
from app.submissions.models import CUSTOM, FINISHED
from runner.custom import CustomInput
from runner.jobs import INTERNAL_ERROR, Expectations, Job, JudgeResult
from runner.text import clean, clean_value

log = logging.getLogger(__name__)


def load_job(session: Session, submission_id: int) -> Job | None:
    """Mark the submission running and build its job; None if it is finished or gone."""
    submission = repository.get(session, submission_id)
    if submission is None or submission.status == FINISHED:
        return None
    version = problems_repository.get_version(session, submission.problem_version_id)
    problem = problems_repository.get_problem(session, submission.problem_id)
    if version is None or problem is None:
        raise LookupError(f"submission {submission_id} points at a missing problem version")
    files = version_files(problem.slug, version)
    if not repository.mark_running(session, submission_id, utcnow()):
        return None
    custom = None
    if submission.mode == CUSTOM:  # the reference travels with the job to the runner, never further
        custom = CustomInput(arguments=dict(submission.custom_input or {}), reference=files.solution)
    return Job(
        entry_point=files.entry_point,
        tests_source=files.tests,
        code=submission.code,
        mode="submit" if submission.mode == "submit" else "run",
        expectations=Expectations.from_dict(version.expectations),
        limits=files.limits,
        job_id=str(submission_id),
        custom=custom,
    )


def record_result(session: Session, submission_id: int, result: JudgeResult) -> bool:
    """Store the final verdict. Idempotent: returns False (and changes nothing) if already finished.

    An internal_error keeps its cause in ``runtime["internal_error"]`` (counted in ``/metrics``)
    and is logged: it is the platform's failure, and ``torchdrill submissions rejudge`` can retry it.
    """
    if result.verdict == INTERNAL_ERROR:
        log.error("internal error on submission %s (cause: %s): %s", submission_id, result.cause or "?",
                  result.message[:500])  # fmt: skip
    recorded = repository.finish(
        session,
        submission_id,
        {
            "verdict": result.verdict,
            "passed": result.passed,
            "total": result.total,
            # The runner already cleaned what the sandbox wrote; a result that came over the broker
            # is cleaned again, so nothing a database or JSON encoder refuses is ever stored.
            "cases": clean_value([c.to_dict() for c in result.cases]),
            "message": clean(result.message, 4000),
            "time_ms": result.time_ms,
            "runtime": clean_value(
                dict(result.runtime) | ({"internal_error": result.cause} if result.cause else {})
            ),
            "finished_at": utcnow(),
        },
    )
    if recorded:  # once per verdict, in the verdict's transaction: the listings' maintained state
        submission = repository.get(session, submission_id)
        if submission is not None and not submission.is_copy:
            progress.record_verdict(
                session,
                submission.user_id,
                submission.problem_id,
                submission.mode,
                result.verdict,
                submission.created_at,
            )
    return recorded


def judge_submission(
    db: Database, runner: JudgeRunner, submission_id: int, notify: Callable[[int], None] | None = None
) -> bool:
    """Load -> judge -> record for one submission. Returns whether a verdict was recorded now."""
    try:
        with db.transaction() as session:
            job = load_job(session, submission_id)
    except Exception as exc:  # a broken stored problem must still end with a verdict
        log.exception("cannot build the job for submission %s", submission_id)
        result = JudgeResult.internal_error(
            f"The problem could not be loaded for judging (not your fault): {exc}", "problem_unloadable"
        )
    else:
        if job is None:
            return False
        try:
            result = runner.judge(job)
        except Exception as exc:  # the runner promises not to raise; if it does, say so
            log.exception("runner failed on submission %s", submission_id)
            result = JudgeResult.internal_error(
                f"The judge failed to run this submission (not your fault): {exc}", "runner_exception"
            )
    with db.transaction() as session:
        recorded = record_result(session, submission_id, result)
    if notify is not None:
        notify(submission_id)
    return recorded


def recover_unfinished(db: Database) -> list[int]:
    """Submissions left queued or running by a previous process: re-queued, ids returned to dispatch."""
    with db.transaction() as session:
        repository.requeue_running(session)
        return repository.unfinished_ids(session)


def reopen_for_rejudge(db: Database, submission_id: int) -> str | None:
    """Put a finished submission back in the queue; returns its previous verdict (None: not finished).

    The old verdict is logged, not kept: the submission is judged again against the problem version
    it was made for, exactly like a new one, and its new verdict is recorded once.
    """
    with db.transaction() as session:
        submission = repository.get(session, submission_id)
        if submission is None or submission.status != FINISHED:
            return None
        previous = submission.verdict or ""
        cause = (submission.runtime or {}).get("internal_error", "")
        if repository.reopen(session, submission_id) and not submission.is_copy:
            progress.retract_verdict(
                session,
                submission.user_id,
                submission.problem_id,
                submission.mode,
                previous,
                repository.first_solve_at(session, submission.user_id, submission.problem_id, submission_id),
            )
    log.warning("submission %s reopened for re-judging (was %s%s)", submission_id, previous,
                f", cause {cause}" if cause else "")  # fmt: skip
    return previous
