"""Test reports: filing one, reading them, answering, and re-judging after a fix.

The loop: a learner reports a case of their finished run or submit ("I think this test is wrong",
with a note); the problem's owners and the instructors whose course sees the submission read it
with the submission attached and answer (a reply and a status: open, not a bug, fixed). When the
test was wrong an owner fixes the problem (the authoring flow: edit, validate, publish version
N+1), then re-judges the reported submissions on it: a dry run lists them, the run copies each one
for the regrade judge account (:func:`app.courses.regrades.judge_account`, the course regrades'
machinery: the learner's own submission is never rewritten, and a copy counts for no progress)
and hands the copies to the normal dispatcher. The reporter is mailed when their report is answered
and when it is re-judged, and reads the outcome on the report and on their submission's page.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import repository as courses_repository
from app.courses.regrades import judge_account
from app.kit.db import on_commit
from app.kit.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.kit.limits import RequestLimiter
from app.kit.mail import Mailer
from app.kit.paging import Page, decode_cursor, page_of
from app.problems import repository as problems_repository
from app.problems import service as problems
from app.problems import visibility
from app.problems.models import Problem
from app.reports import access, repository
from app.reports.models import NOT_A_BUG, OPEN, STATUSES, TestReport
from app.reports.views import RejudgePlan, RejudgeTarget, ReportOutcome, ReportView
from app.submissions.dispatch import Dispatcher
from app.submissions.gate import view_of
from app.submissions.models import COPY_KEY_PREFIX, CUSTOM, FINISHED, QUEUED, Submission

log = logging.getLogger(__name__)

# The idempotency key of a report's re-judged copy: f"{REPORT_COPY_PREFIX}{report id}-{version id}"
# (app.reports.outcomes mails the reporter when such a copy finishes).
REPORT_COPY_PREFIX = f"{COPY_KEY_PREFIX}report-"

MAX_NOTE = 2000
MAX_REPLY = 4000
REPORTABLE = ("failed", "error")  # a case that passed is not reported as wrong
CURSOR = (int,)  # the shape of a report list's cursor: the last report's id (newest first)


@dataclass(frozen=True)
class Notifier:
    """How the reporter hears of an answer: the app's mail sender, with links to ``site``."""

    mailer: Mailer | None
    site: str  # the public URL, no trailing slash

    def tell(self, session: Session, to: str, subject: str, body: str) -> None:
        if self.mailer is not None:
            mailer = self.mailer
            on_commit(session, lambda: mailer.send_later(to, subject, body))


def _text(value: str, limit: int, what: str, *, required: bool) -> str:
    value = (value or "").strip()
    if "\x00" in value:
        raise InvalidInput(f"The {what} contains a NUL character.")
    if required and not value:
        raise InvalidInput(f"Say what you think is wrong in the {what}.")
    if len(value) > limit:
        raise InvalidInput(f"The {what} is {len(value)} characters; at most {limit}.")
    return value


def _own_submission(session: Session, user: User, submission_id: int) -> Submission:
    submission = repository.submissions_by_ids(session, {submission_id}).get(submission_id)
    if submission is None or submission.user_id != user.id:
        raise NotFound(f"There is no submission #{submission_id}.")
    return submission


def create(
    session: Session,
    user: User,
    submission_id: int,
    case: str,
    note: str,
    now: datetime,
    *,
    limiter: RequestLimiter,
    per_minute: int,
) -> TestReport:
    """File a report on a case of the user's own finished run or submit."""
    submission = _own_submission(session, user, submission_id)
    problem = problems_repository.get_problem(session, submission.problem_id)
    if problem is None:
        raise NotFound(f"There is no submission #{submission_id}.")
    # The problem's gate holds: nobody reports (and so reads through a report) what they may not work on.
    problems.get_published(session, problem.slug, user, now)
    problems.require_access(problem, user, now)
    if submission.mode == CUSTOM or submission.status != FINISHED:
        raise InvalidInput("Only a finished run or submit has test cases to report.")
    note = _text(note, MAX_NOTE, "note", required=True)
    cases = {c.get("name"): c for c in submission.cases or []}
    found = cases.get(case)
    if found is None:
        raise InvalidInput(f"Submission #{submission_id} has no test case called {case[:200]!r}.")
    if found.get("status") not in REPORTABLE:
        raise InvalidInput(f"Test case {case[:200]!r} passed: only a failing case is reported as wrong.")
    limiter.hit(user.id, per_minute)
    if repository.for_case(session, submission.id, case) is not None:
        raise Conflict(f"You already reported test case {case[:200]!r} of submission #{submission_id}.")
    try:
        with session.begin_nested():
            report = repository.add(
                session,
                TestReport(
                    submission_id=submission.id,
                    problem_id=problem.id,
                    reporter_id=user.id,
                    case_name=case,
                    note=note,
                    status=OPEN,
                    reply="",
                    created_at=now,
                    updated_at=now,
                ),
            )
    except IntegrityError:  # the same report, filed twice at once
        raise Conflict(
            f"You already reported test case {case[:200]!r} of submission #{submission_id}."
        ) from None
    log.info("test report %s filed by user %s: problem %s, submission %s", report.id, user.id, problem.slug,
             submission.id)  # fmt: skip
    return report


@dataclass(frozen=True)
class Loaded:
    report: TestReport
    problem: Problem
    submission: Submission


def _load(session: Session, report: TestReport) -> Loaded | None:
    problem = problems_repository.get_problem(session, report.problem_id)
    submission = repository.submissions_by_ids(session, {report.submission_id}).get(report.submission_id)
    if problem is None or submission is None:
        return None
    return Loaded(report, problem, submission)


def readable(session: Session, user: User, report_id: int) -> Loaded:
    """The report if ``user`` may read it; anybody else's answers exactly like a missing one."""
    report = repository.get(session, report_id)
    loaded = _load(session, report) if report is not None else None
    if loaded is None or not access.reads(session, loaded.report, loaded.problem, loaded.submission, user):
        raise NotFound(f"There is no report #{report_id}.")
    return loaded


def view(session: Session, loaded: Loaded, user: User, now: datetime) -> ReportView:
    report, problem, submission = loaded.report, loaded.problem, loaded.submission
    staff = access.answers(session, report, problem, submission, user)
    outcome = None
    if report.rejudge_id is not None:
        copy = repository.submissions_by_ids(session, {report.rejudge_id}).get(report.rejudge_id)
        if copy is not None:
            number = courses_repository.version_numbers(session, [copy.problem_version_id])
            outcome = ReportOutcome.of(copy, number.get(copy.problem_version_id))
    reporter = (
        repository.users_by_ids(session, {report.reporter_id}).get(report.reporter_id) if staff else None
    )
    shown = view_of(session, user, submission, problem, now, url=f"/api/v1/submissions/{submission.id}")
    return ReportView.of(
        report,
        problem.slug,
        submission,
        shown,
        outcome=outcome,
        staff=staff,
        reporter_email=reporter.email if reporter else None,
    )


def of_submission(session: Session, user: User, submission: Submission, now: datetime) -> list[ReportView]:
    """The reporter's reports on one of their submissions (the submission page)."""
    out = []
    for report in repository.of_submission(session, submission.id):
        loaded = _load(session, report)
        if loaded is not None and access.reads(session, report, loaded.problem, submission, user):
            out.append(view(session, loaded, user, now))
    return out


def listing(
    session: Session,
    user: User,
    now: datetime,
    *,
    slug: str | None,
    status: str | None,
    after: str | None,
    limit: int,
) -> Page[ReportView]:
    """A page of the reports ``user`` may read, newest first: on one problem (as staff: every report
    they answer, plus their own), or without a problem the user's own. Paged in SQL with the one
    cursor format (``app.kit.paging``: ``after`` is the last report's id, as given in ``next``)."""
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}.")
    below = decode_cursor(after, CURSOR)[0] if after is not None else None
    if slug is None:
        readable = access.own(user)
    else:
        problem = (
            problems_repository.get_by_slug(session, slug) if len(slug) <= 80 and "\x00" not in slug else None
        )
        if problem is None:
            raise NotFound(f"There is no problem called {slug[:80]!r}.")
        readable = access.readable_on(session, problem, user)
    rows = repository.page(session, readable, status=status, below_id=below, limit=limit + 1)
    found = page_of(rows, limit, lambda r: (r.id,))
    out: list[ReportView] = []
    for report in found.items:
        loaded = _load(session, report)
        if loaded is not None:
            out.append(view(session, loaded, user, now))
    if slug is not None and not out and after is None:
        # A problem the caller may not know of answers like one that does not exist.
        problem = problems_repository.get_by_slug(session, slug)
        if problem is not None and not visibility.can_see(session, problem, user, now):
            raise NotFound(f"There is no problem called {slug[:80]!r}.")
    return Page(out, found.cursor)


def answer(
    session: Session,
    user: User,
    report_id: int,
    status: str,
    reply: str,
    now: datetime,
    notifier: Notifier,
) -> Loaded:
    """Owners, admins and the course's instructors reply and set the status; the reporter is mailed."""
    loaded = readable(session, user, report_id)
    report = loaded.report
    if not access.answers(session, report, loaded.problem, loaded.submission, user):
        raise Forbidden("Only the problem's owners and the instructors of the course answer a report.")
    if status not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}.")
    report.status = status
    report.reply = _text(reply, MAX_REPLY, "reply", required=False)
    report.answered_by_id = user.id
    report.answered_at = now
    report.updated_at = now
    session.flush()
    reporter = repository.users_by_ids(session, {report.reporter_id}).get(report.reporter_id)
    if reporter is not None:
        words = {"open": "still open", "not_a_bug": "not a bug", "fixed": "fixed"}[status]
        notifier.tell(
            session,
            reporter.email,
            f"Your report on {loaded.problem.title} was answered: {words}",
            f"Your report on test case {report.case_name!r} of submission #{report.submission_id} "
            f"({loaded.problem.title}) is now: {words}.\n\n"
            + (f"The answer:\n\n{report.reply}\n\n" if report.reply else "")
            + f"See it here: {notifier.site}/submissions/{report.submission_id}\n",
        )
    log.info("test report %s answered by user %s: %s", report.id, user.id, status)
    return loaded


def _dispatch(dispatcher: Dispatcher, submission_ids: list[int]) -> None:
    for submission_id in submission_ids:
        dispatcher.submit(submission_id)


def rejudge(
    session: Session,
    dispatcher: Dispatcher,
    user: User,
    slug: str,
    now: datetime,
    notifier: Notifier,
    *,
    dry_run: bool,
) -> RejudgePlan:
    """Re-judge the reported submissions of ``slug`` on its live version: owners and admins only.

    The targets are the reports not answered "not a bug" whose submission ran on another version and
    that were not re-judged on the live one yet. ``dry_run`` lists them and changes nothing.
    """
    problem = (
        problems_repository.get_by_slug(session, slug) if len(slug) <= 80 and "\x00" not in slug else None
    )
    if problem is None or not access.manages(session, problem, user):
        raise NotFound(f"There is no problem called {slug[:80]!r} that you can edit.")
    version_id = problem.current_version_id
    if version_id is None:
        raise InvalidInput(f"{slug!r} has no published version: publish the fix first.")
    reports = [
        r
        for r in repository.of_problem(session, problem.id)
        if r.status != NOT_A_BUG and r.rejudge_version_id != version_id
    ]
    originals = repository.submissions_by_ids(session, {r.submission_id for r in reports})
    targets = [(r, originals[r.submission_id]) for r in reports if r.submission_id in originals
               and originals[r.submission_id].problem_version_id != version_id]  # fmt: skip
    numbers = courses_repository.version_numbers(
        session, sorted({version_id} | {s.problem_version_id for _, s in targets})
    )
    plan = RejudgePlan(
        problem=problem.slug,
        version=numbers.get(version_id),
        dry_run=dry_run,
        targets=[
            RejudgeTarget(report_id=r.id, submission_id=s.id, ran_on=numbers.get(s.problem_version_id))
            for r, s in targets
        ],
    )
    if dry_run or not targets:
        return plan
    judge = judge_account(session)
    copies: list[int] = []
    reporters = repository.users_by_ids(session, {r.reporter_id for r, _ in targets})
    for report, original in targets:
        copy = Submission(
            user_id=judge.id,
            problem_id=problem.id,
            problem_version_id=version_id,
            mode=original.mode,
            code=original.code,
            status=QUEUED,
            created_at=now,
            idempotency_key=f"{REPORT_COPY_PREFIX}{report.id}-{version_id}",
        )
        session.add(copy)
        session.flush()
        copies.append(copy.id)
        report.rejudge_id = copy.id
        report.rejudge_version_id = version_id
        report.updated_at = now
        reporter = reporters.get(report.reporter_id)
        if reporter is not None:
            notifier.tell(
                session,
                reporter.email,
                f"Your report on {problem.title}: re-judged on version {plan.version}",
                f"{problem.title} was updated to version {plan.version} after reports like yours "
                f"(test case {report.case_name!r}), and your submission #{original.id} is being judged "
                f"again on it. You will get another mail with the outcome.\n\n"
                f"See it here: {notifier.site}/submissions/{original.id}\n",
            )
    session.flush()
    on_commit(session, lambda: _dispatch(dispatcher, copies))
    log.info("test reports of %s re-judged on version %s by user %s: %d submissions", problem.slug,
             version_id, user.id, len(copies))  # fmt: skip
    return plan
