"""Publishing: the working copy validated, then made version N+1 (the importer's ``import_problem``,
so files and hashes match the bank import exactly) and its draft dropped; unpublishing; an admin
publishing a course-only problem site-wide.

Validation runs before anything is written, so no write transaction is held while the sandbox works;
a refusal (:class:`ValidationFailed`) says why, file by file."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring import repository
from app.authoring.checking import check_files, track_titles
from app.authoring.editing import store_draft
from app.authoring.validation import validate_files
from app.authoring.working_copy import get_problem, live_version_of, workspace_of
from app.kit.db import release_connection
from app.kit.errors import AppError, Conflict, Forbidden
from app.kit.runner import JudgeRunner
from app.problems.importer import import_problem
from app.problems.models import Problem, ProblemVersion
from runner.format.problem import ProblemFiles
from runner.format.validation_report import ValidationReport
from runner.jobs import Expectations, Job, JudgeResult, Mode


class ValidationFailed(AppError):
    """Validation in the sandbox refused the problem; ``report`` says why, file by file."""

    status_code = 422
    code = "validation_failed"

    def __init__(self, report: ValidationReport) -> None:
        self.report = report
        causes = "; ".join(str(f) for f in report.errors[:3])
        more = f" (and {len(report.errors) - 3} more)" if len(report.errors) > 3 else ""
        super().__init__(f"Problem {report.slug!r} did not pass validation: {causes}{more}")


class _Precomputed:
    """The runner, but expectations just computed by validation are not computed a second time."""

    def __init__(self, runner: JudgeRunner, problem: ProblemFiles, expectations: Expectations) -> None:
        self._runner = runner
        self._problem = problem
        self._expectations = expectations

    def compute_expectations(self, problem: ProblemFiles) -> Expectations:
        if problem == self._problem:
            return self._expectations
        return self._runner.compute_expectations(problem)

    def judge(self, job: Job) -> JudgeResult:
        return self._runner.judge(job)

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job:
        return problem.job(expectations, code, mode, job_id)

    def runtime_info(self) -> dict[str, str]:
        return self._runner.runtime_info()

    def ready(self) -> bool:
        return self._runner.ready()


def _publish_parsed(
    session: Session, problem: Problem, parsed: ProblemFiles, report: ValidationReport, runner: JudgeRunner
) -> ProblemVersion:
    """Make validated files the live version (a new one unless identical to the latest)."""
    assert report.ok and report.expectations is not None
    import_problem(session, parsed, _Precomputed(runner, parsed, report.expectations))
    problem.published = True
    repository.delete_draft(session, problem.id)
    version = live_version_of(session, problem)
    assert version is not None, "import_problem always leaves a current version"
    return version


def publish(session: Session, slug: str, user: User, runner: JudgeRunner) -> ProblemVersion:
    """Validate the working copy and make it the live version; raises :class:`ValidationFailed`."""
    problem = get_problem(session, slug, user)
    files = workspace_of(session, problem).files
    parsed = check_files(slug, files)
    titles = track_titles(session)
    release_connection(session)  # no connection held while the sandbox runs
    report = validate_files(parsed, runner, titles)
    if not report.ok:
        raise ValidationFailed(report)
    return _publish_parsed(session, problem, parsed, report, runner)


def publish_files(
    session: Session, slug: str, files: dict[str, str], user: User, runner: JudgeRunner
) -> ProblemVersion:
    """Publish exactly the files on the author's screen (the editor form), not the last saved draft.

    A refusal keeps those files as the draft, so an unsaved edit is never lost by pressing Publish.
    """
    problem = get_problem(session, slug, user)
    parsed = check_files(slug, files)
    titles = track_titles(session)
    release_connection(session)  # before any write: no lock, no connection while the sandbox runs
    report = validate_files(parsed, runner, titles)
    if not report.ok:
        store_draft(session, problem, parsed.files(), user)
        session.flush()
        raise ValidationFailed(report)
    return _publish_parsed(session, problem, parsed, report, runner)


def unpublish(session: Session, slug: str, user: User) -> Problem:
    problem = get_problem(session, slug, user)
    problem.published = False
    session.flush()
    return problem


def set_site_wide(session: Session, slug: str, user: User, site_wide: bool) -> Problem:
    """Admins only: publish a course-only problem site-wide (it joins its category's public track
    once published), or make a problem of a course course-only again."""
    problem = get_problem(session, slug, user)
    if not user.is_admin:
        raise Forbidden("Only an admin publishes a problem site-wide or takes it back into its course.")
    if not site_wide and problem.course_id is None:
        raise Conflict(f"Problem {slug!r} belongs to no course, so it cannot be made course-only.")
    problem.course_only = not site_wide
    session.flush()
    return problem
