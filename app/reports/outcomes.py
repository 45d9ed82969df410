"""The reporter hears the outcome: when the re-judged copy of a reported submission finishes, its
reporter is mailed the verdict on the new version (the report page and the submission page read the
same copy, :class:`app.reports.views.ReportOutcome`).

:func:`install` hooks :func:`tell_outcome` to the verdicts of the reports' copies
(``verdict_listeners.on_copy_finished``): it runs in the verdict's transaction, so the mail goes
out once, after the commit, exactly when the outcome is stored. Every process that stores verdicts
installs it: the web process (``app.main.create_app``, its embedded judge) and, scaled out, the
recorder (``app.scaleout.recorder.create_recorder``).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from app.courses import repository as courses_repository
from app.kit.words import passed_phrase
from app.problems import repository as problems_repository
from app.reports import repository
from app.reports.service import REPORT_COPY_PREFIX, Notifier
from app.submissions import verdict_listeners
from app.submissions.models import Submission
from runner.verdict import Verdict


def install(notifier: Callable[[], Notifier]) -> None:
    """Mail reporters their re-judge's outcome, through the ``notifier`` of the moment (the app's mailer)."""
    verdict_listeners.on_copy_finished(
        REPORT_COPY_PREFIX, lambda session, copy: tell_outcome(session, copy, notifier())
    )


def tell_outcome(session: Session, copy: Submission, notifier: Notifier) -> None:
    """Tell the reporters whose report re-judged ``copy`` (just finished) its verdict."""
    reports = repository.rejudged_by(session, copy.id)
    if not reports:
        return
    problem = problems_repository.get_problem(session, copy.problem_id)
    title = problem.title if problem is not None else "the problem"
    number = courses_repository.version_numbers(session, [copy.problem_version_id]).get(
        copy.problem_version_id
    )
    verdict = Verdict.parse(copy.verdict)
    words = verdict.label if verdict is not None else copy.verdict or "no verdict"
    counted = f" ({passed_phrase(copy.passed, copy.total)})" if copy.passed is not None and copy.total else ""
    reporters = repository.users_by_ids(session, {r.reporter_id for r in reports})
    for report in reports:
        reporter = reporters.get(report.reporter_id)
        if reporter is None:
            continue
        notifier.tell(
            session,
            reporter.email,
            f"Your report on {title}: {words} on version {number}",
            f"Your submission #{report.submission_id} to {title}, re-judged on version {number} after your "
            f"report on test case {report.case_name!r}: {words}{counted}.\n\n"
            "Your own submission keeps its first verdict; the re-judged result is shown with your report.\n\n"
            f"See it here: {notifier.site}/submissions/{report.submission_id}#reports\n",
        )
