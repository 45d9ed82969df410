"""The comparison of two of a learner's submissions (HTML); a submission's own page is
``app.site.submission_pages`` (it composes the reports on its cases)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.accounts.deps import CurrentUser
from app.kit.db import utcnow
from app.kit.web import SessionDep, render
from app.submissions import service
from app.submissions.code_diff import line_diff

router = APIRouter(tags=["submissions"])


@router.get("/submissions/{first_id}/compare/{second_id}")
def compare_page(
    request: Request, first_id: int, second_id: int, user: CurrentUser, session: SessionDep
) -> Any:
    """Two of the learner's submissions side by side as a line diff (older first)."""
    both = (service.get_own(session, user, first_id), service.get_own(session, user, second_id))
    older, newer = sorted(both, key=lambda s: s.id)
    problems = {s.id: service.problem_of(session, s) for s in (older, newer)}
    now = utcnow()
    return render(
        request,
        "submissions/compare.html",
        {
            "older": service.page_view(session, user, older, problems[older.id], now),
            "newer": service.page_view(session, user, newer, problems[newer.id], now),
            "problem": problems[newer.id],
            "diff": line_diff(older.code, newer.code),
        },
    )
