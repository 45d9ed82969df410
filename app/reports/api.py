"""``/api/v1``: test reports — file one on a case of your submission, read, answer, re-judge.

Errors are ``{"error", "detail"}``; a report anybody but its reporter, the problem's owners, admins
and the instructors whose course sees the submission asks for answers 404, like a missing one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from app.kit.db import utcnow
from app.kit.paging import MAX_CURSOR, next_url
from app.kit.web import SessionDep, SettingsDep
from app.reports import service
from app.reports.deps import NotifierDep, ReportAnswerer, ReportFiler, ReportLimiter, ReportReader
from app.reports.views import RejudgePlan, ReportList, ReportView
from app.submissions.deps import DispatcherDep

router = APIRouter(prefix="/api/v1", tags=["reports"])

ReportId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the report's id")]
SubmissionId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the submission's id")]
Slug = Annotated[str, Path(max_length=80, description="the problem's slug")]
Status = Literal["open", "not_a_bug", "fixed"]

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not logged in / no valid token"},
    403: {"description": "Not allowed (`premium_required`; `insufficient_scope`: the token lacks the scope)"},
    404: {"description": "No such report, submission or problem, or not yours to read"},
    409: {"description": "The case is already reported"},
    422: {"description": "Invalid fields (`invalid_input`)"},
    429: {"description": "Rate limited; see the Retry-After header"},
}


class ReportIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"case": "hidden 3", "note": "The statement says rtol=1e-3."}]}
    )
    case: str = Field(max_length=200, description="The name of a failed case of the submission")
    note: str = Field(max_length=service.MAX_NOTE, description="Why you think the test is wrong")


class AnswerIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"status": "fixed", "reply": "Thanks: the tolerance is now 1e-3."}]}
    )
    status: Status
    reply: str = Field(default="", max_length=service.MAX_REPLY, description="Your answer to the reporter")


@router.post(
    "/submissions/{submission_id}/reports", status_code=201, response_model=ReportView, responses=ERRORS
)
def create_report(
    submission_id: SubmissionId,
    body: ReportIn,
    user: ReportFiler,
    session: SessionDep,
    settings: SettingsDep,
    limiter: ReportLimiter,
) -> ReportView:
    """Report a failed case of your finished run or submit: "I think this test is wrong"."""
    now = utcnow()
    report = service.create(
        session, user, submission_id, body.case, body.note, now,
        limiter=limiter, per_minute=settings.reports_per_minute,
    )  # fmt: skip
    return service.view(session, service.readable(session, user, report.id), user, now)


@router.get("/reports", response_model=ReportList, responses=ERRORS)
def list_reports(
    user: ReportReader,
    session: SessionDep,
    problem: Annotated[str | None, Query(max_length=80, description="A problem's slug")] = None,
    status: Annotated[Status | None, Query()] = None,
    after: Annotated[
        str | None, Query(max_length=MAX_CURSOR, description="The cursor of the next page (from `next`)")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> ReportList:
    """Without `problem`: your own reports. With it: every report on the problem you may read (all of
    them for its owners, your courses' for an instructor), newest first; follow `next` for older ones."""
    found = service.listing(session, user, utcnow(), slug=problem, status=status, after=after, limit=limit)
    params = {"problem": problem, "status": status, "limit": limit}
    return ReportList(items=found.items, next=next_url("/api/v1/reports", params, found.cursor))


@router.get("/reports/{report_id}", response_model=ReportView, responses=ERRORS)
def get_report(report_id: ReportId, user: ReportReader, session: SessionDep) -> ReportView:
    now = utcnow()
    return service.view(session, service.readable(session, user, report_id), user, now)


@router.post("/reports/{report_id}/answer", response_model=ReportView, responses=ERRORS)
def answer_report(
    report_id: ReportId, body: AnswerIn, user: ReportAnswerer, session: SessionDep, notifier: NotifierDep
) -> ReportView:
    """Owners, admins and the course's instructors: reply and set the status; the reporter is mailed."""
    now = utcnow()
    loaded = service.answer(session, user, report_id, body.status, body.reply, now, notifier)
    return service.view(session, loaded, user, now)


@router.post("/problems/{slug}/reports/rejudge", response_model=RejudgePlan, responses=ERRORS)
def rejudge_reports(
    slug: Slug,
    user: ReportAnswerer,
    session: SessionDep,
    dispatcher: DispatcherDep,
    notifier: NotifierDep,
    dry_run: Annotated[bool, Query(description="List what would be re-judged; change nothing")] = True,
) -> RejudgePlan:
    """Owners and admins, after publishing a fix: judge the reported submissions again on the live
    version (copies; the learners' own submissions are never rewritten). A dry run by default."""
    return service.rejudge(session, dispatcher, user, slug, utcnow(), notifier, dry_run=dry_run)
