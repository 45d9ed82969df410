"""Worker-side steps of judging: load the job, run it, record the verdict exactly once.

These functions own their transactions (a worker has no request), so a Celery task can call
:func:`judge_submission` unchanged. A crash between the steps leaves the submission
queued/running, and :func:`recover_unfinished` hands it to the dispatcher again on startup.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable

from sqlalchemy.orm import Session

from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.problems import repository as problems_repository
from app.progress import repository as progress
from app.submissions import repository, verdict_listeners
from app.submissions.models import CUSTOM, FINISHED, Submission
from runner.format.custom import CustomInput
from runner.format.problem import ProblemFiles, build_problem
from runner.jobs import Expectations, Job, JudgeResult
from runner.records.text import clean, clean_value
from runner.verdict import Verdict

log = logging.getLogger(__name__)


class _ProblemCache:
    """Built problems (files and expectations) by version, so a job costs no TOML or JSON parsing.

    Versions are immutable snapshots; the key also holds the version's content hash and the
    problem's slug, so a version id that a database gives again after a deletion is not mistaken
    for the old one. Bounded: the least recently used entries are dropped.
    """

    def __init__(self, size: int = 128) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._built: OrderedDict[tuple[int, str, str], tuple[ProblemFiles, Expectations]] = OrderedDict()

    def get(self, session: Session, version_id: int, problem_id: int) -> tuple[ProblemFiles, Expectations]:
        identity = problems_repository.version_identity(session, version_id, problem_id)
        if identity is None:
            raise LookupError(f"version {version_id} of problem {problem_id} is missing")
        key = (version_id, *identity)
        with self._lock:
            built = self._built.get(key)
            if built is not None:
                self._built.move_to_end(key)
                return built
        content = problems_repository.version_content(session, version_id)
        if content is None:
            raise LookupError(f"version {version_id} of problem {problem_id} is missing")
        files, expectations = content
        built = (build_problem(identity[1], dict(files)), Expectations.from_dict(expectations))
        with self._lock:
            self._built[key] = built
            while len(self._built) > self._size:
                self._built.popitem(last=False)
        return built


_problems = _ProblemCache()


def load_job(session: Session, submission_id: int) -> Job | None:
    """Mark the submission running and build its job; None if it is finished or gone.

    Two statements: the running mark, which reads back what the job needs (``repository.claim``),
    and the problem version's identity (its files are parsed once per version, then cached).
    """
    claim = repository.claim(session, submission_id, utcnow())
    if claim is None:
        return None
    try:
        files, expectations = _problems.get(session, claim.problem_version_id, claim.problem_id)
    except LookupError:
        raise LookupError(f"submission {submission_id} points at a missing problem version") from None
    custom = None
    if claim.mode == CUSTOM:  # the reference travels with the job to the runner, never further
        custom = CustomInput.judged_like(dict(claim.custom_input or {}), files.solution, expectations)
    return Job(
        entry_point=files.entry_point,
        tests_source=files.tests,
        code=claim.code,
        mode="submit" if claim.mode == "submit" else "run",
        expectations=expectations,
        limits=files.limits,
        job_id=str(submission_id),
        custom=custom,
        source_allow=files.source_allow,
    )


def record_verdict(session: Session, submission_id: int, result: JudgeResult) -> Submission | None:
    """Store the final verdict, once. Returns the finished row (``repository.finish``: a transient
    copy read back by the UPDATE, without its code), or None (and changes nothing) if the
    submission was already finished or is gone.

    An internal_error keeps its cause in ``runtime["internal_error"]`` (counted in ``/metrics``)
    and is logged: it is the platform's failure, and ``torchdrill submissions rejudge`` can retry it.
    """
    if result.verdict == Verdict.INTERNAL_ERROR:
        log.error("internal error on submission %s (cause: %s): %s", submission_id, result.cause or "?",
                  result.message[:500])  # fmt: skip
    finished = repository.finish(
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
    # Once per verdict, in the verdict's transaction: the listings' maintained state.
    if finished is not None and not finished.is_copy:
        progress.record_verdict(
            session, finished.user_id, finished.problem_id, finished.mode, result.verdict, finished.created_at
        )
        verdict_listeners.recorded(session, finished)  # e.g. course analytics (app.analytics)
    elif finished is not None:
        verdict_listeners.copy_finished(session, finished)  # e.g. a test report's outcome mail
    return finished


def record_result(session: Session, submission_id: int, result: JudgeResult) -> bool:
    """:func:`record_verdict`, saying only whether the verdict was recorded now."""
    return record_verdict(session, submission_id, result) is not None


Notify = Callable[[int, Submission | None], None]


def judge(
    db: Database, runner: JudgeRunner, submission_id: int, notify: Notify | None = None
) -> Submission | None:
    """Load -> judge -> record for one submission. Returns the finished row if its verdict was
    recorded now (None otherwise); ``notify`` hears the id and that row once it is committed."""
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
            return None
        try:
            result = runner.judge(job)
        except Exception as exc:  # the runner promises not to raise; if it does, say so
            log.exception("runner failed on submission %s", submission_id)
            result = JudgeResult.internal_error(
                f"The judge failed to run this submission (not your fault): {exc}", "runner_exception"
            )
    with db.transaction() as session:
        finished = record_verdict(session, submission_id, result)
    if notify is not None:
        notify(submission_id, finished)
    return finished


def judge_submission(
    db: Database, runner: JudgeRunner, submission_id: int, notify: Notify | None = None
) -> bool:
    """:func:`judge`, saying only whether a verdict was recorded now."""
    return judge(db, runner, submission_id, notify) is not None


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
            verdict_listeners.reopened(session, submission)
    log.warning("submission %s reopened for re-judging (was %s%s)", submission_id, previous,
                f", cause {cause}" if cause else "")  # fmt: skip
    return previous
