from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.accounts.deps import CurrentUser
from app.kit.markdown import highlight_code
from app.kit.web import SessionDep, render
from app.submissions import service

router = APIRouter(tags=["submissions"])


@router.get("/submissions/{submission_id}")
def submission_page(request: Request, submission_id: int, user: CurrentUser, session: SessionDep) -> Any:
    submission = service.get_own(session, user, submission_id)
    problem = service.problem_of(session, submission)
    return render(
        request,
        "submissions/detail.html",
        {
            "submission": service.to_view(submission, problem.slug),
            "problem": problem,
            "version": service.version_label(session, submission, problem),
            "code_html": highlight_code(submission.code),
        },
    )
