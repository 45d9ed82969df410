"""The reports pages (HTML): filing a report from a submission's page, a problem's reports for its
owners and instructors (answer, and after a fix the re-judge with its dry run first).

Plain forms with the session's CSRF token over the same services as the API; the submission page
itself, which lists the learner's reports with their outcome, is ``app.site.submission_pages``.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts.deps import CurrentUser
from app.kit.db import utcnow
from app.kit.errors import AppError, NotFound
from app.kit.paging import MAX_CURSOR, next_url
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, render
from app.kit.words import count
from app.problems import repository as problems_repository
from app.reports import access, service
from app.reports.deps import NotifierDep, ReportLimiter
from app.reports.views import RejudgePlan
from app.submissions.deps import DispatcherDep

router = APIRouter(tags=["report pages"])

NOTICE_KEY = "report_notice"
Slug = Annotated[str, Path(max_length=80)]


def notice(request: Request, url: str, text: str) -> RedirectResponse:
    request.session[NOTICE_KEY] = text
    return RedirectResponse(url, status_code=303)


def pop_notice(request: Request) -> str | None:
    value = request.session.pop(NOTICE_KEY, None)
    return value if isinstance(value, str) else None


@router.post("/submissions/{submission_id}/reports", dependencies=[CsrfProtected])
def file_report(
    request: Request,
    submission_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    user: CurrentUser,
    session: SessionDep,
    settings: SettingsDep,
    limiter: ReportLimiter,
    case: Annotated[str, Form(max_length=200)],
    note: Annotated[str, Form(max_length=service.MAX_NOTE)] = "",
) -> Any:
    back = f"/submissions/{submission_id}#reports"
    try:
        service.create(session, user, submission_id, case, note, utcnow(), limiter=limiter,
                       per_minute=settings.reports_per_minute)  # fmt: skip
    except AppError as exc:
        if exc.status_code == 404:
            raise
        return notice(request, back, exc.detail)
    return notice(request, back, "Thanks: your report was sent to the problem's authors.")


PAGE_SIZE = 50


def _reports_page(request: Request, session: SessionDep, user: CurrentUser, slug: str, status: str | None,
                  plan: RejudgePlan | None = None, after: str | None = None) -> Any:  # fmt: skip
    now = utcnow()
    found = service.listing(session, user, now, slug=slug, status=status, after=after, limit=PAGE_SIZE)
    reports = found.items
    problem = problems_repository.get_by_slug(session, slug)
    assert problem is not None  # listing answered 404 otherwise
    manages = access.manages(session, problem, user)
    staff = [r for r in reports if r.submission is not None]
    if not staff and not manages and after is None:
        raise NotFound(f"There is no problem called {slug!r} with reports you answer.")
    return render(
        request,
        "reports/problem.html",
        {"problem": problem, "reports": staff, "manages": manages, "status": status or "",
         "plan": plan, "notice": pop_notice(request),
         "next_url": next_url(f"/problems/{quote(slug)}/reports", {"status": status}, found.cursor)},
    )  # fmt: skip


@router.get("/problems/{slug}/reports")
def problem_reports(
    request: Request,
    slug: Slug,
    user: CurrentUser,
    session: SessionDep,
    status: Annotated[str | None, Query(pattern="^(open|not_a_bug|fixed)$")] = None,
    after: Annotated[str | None, Query(max_length=MAX_CURSOR)] = None,
) -> Any:
    """A page of the problem's reports that the caller answers, newest first ("Older reports")."""
    return _reports_page(request, session, user, slug, status, after=after)


@router.post("/reports/{report_id}/answer", dependencies=[CsrfProtected])
def answer_report(
    request: Request,
    report_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    user: CurrentUser,
    session: SessionDep,
    notifier: NotifierDep,
    status: Annotated[str, Form(max_length=20)],
    reply: Annotated[str, Form(max_length=service.MAX_REPLY)] = "",
) -> Any:
    loaded = service.answer(session, user, report_id, status, reply, utcnow(), notifier)
    return notice(request, f"/problems/{quote(loaded.problem.slug)}/reports#report-{report_id}",
                  f"Report #{report_id} answered; the reporter is told.")  # fmt: skip


@router.post("/problems/{slug}/reports/rejudge", dependencies=[CsrfProtected])
def rejudge(
    request: Request,
    slug: Slug,
    user: CurrentUser,
    session: SessionDep,
    dispatcher: DispatcherDep,
    notifier: NotifierDep,
    confirm: Annotated[str, Form(max_length=10)] = "",
) -> Any:
    """Without ``confirm``: the dry run, shown on the reports page. With it: re-judge now."""
    dry_run = confirm != "yes"
    plan = service.rejudge(session, dispatcher, user, slug, utcnow(), notifier, dry_run=dry_run)
    if dry_run:
        return _reports_page(request, session, user, slug, None, plan)
    what = count(len(plan.targets), "reported submission")
    return notice(request, f"/problems/{quote(slug)}/reports", f"Re-judging {what} on v{plan.version}.")
