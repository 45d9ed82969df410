"""A submission's page (HTML): its result and code, the learner's reports on its cases with their
answers and re-judged outcome, and the form to report a case ("I think this test is wrong")."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.accounts.deps import CurrentUser
from app.kit.db import utcnow
from app.kit.markdown import highlight_code
from app.kit.web import SessionDep, render
from app.reports import pages as report_pages
from app.reports import service as reports
from app.submissions import service
from app.submissions.models import CUSTOM, FINISHED

router = APIRouter(tags=["submissions"])


@router.get("/submissions/{submission_id}")
def submission_page(request: Request, submission_id: int, user: CurrentUser, session: SessionDep) -> Any:
    submission = service.get_own(session, user, submission_id)
    problem = service.problem_of(session, submission)
    now = utcnow()
    view = service.page_view(session, user, submission, problem, now)
    filed = reports.of_submission(session, user, submission, now)
    reported = {r.case for r in filed}
    reportable = [
        c["name"] for c in view["cases"] if c["status"] in reports.REPORTABLE and c["name"] not in reported
    ]
    return render(
        request,
        "submissions/detail.html",
        {
            "submission": view,
            "problem": problem,
            "version": service.version_label(session, submission, problem),
            "code_html": highlight_code(submission.code),
            "reports": [r.model_dump(mode="json") for r in filed],
            # Reporting a case needs the problem's tests (its gate): nothing to report while locked.
            "reportable": reportable
            if submission.status == FINISHED and submission.mode != CUSTOM and not view["locked"]
            else [],
            "report_notice": report_pages.pop_notice(request),
        },
    )
