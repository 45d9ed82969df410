"""Who calls moderation: reporters (``submit``) and moderators (``teach``), and the report limit's window."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.deps import SubmitCaller, TeachReadCaller, TeachWriteCaller
from app.kit.limits import Quota, app_limiter

LIMIT_WINDOW = "moderation-reports:"  # its Redis key, inside the deployment's namespace


async def get_report_limiter(request: Request) -> Quota:
    """The reporting window, spent at ``TORCHDRILL_POST_REPORTS_PER_MINUTE``."""
    limiter = app_limiter(request, LIMIT_WINDOW, "reports of posts")
    return Quota(limiter, request.app.state.settings.post_reports_per_minute)


Reporter = SubmitCaller
ModeratorReader = TeachReadCaller
Moderator = TeachWriteCaller
ReportLimiter = Annotated[Quota, Depends(get_report_limiter)]
