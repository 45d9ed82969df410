"""Who calls the reports API: a session user (with the CSRF token on writes) or a token's owner.

A token needs ``read`` to read reports, ``submit`` to file one and ``teach`` to answer and
re-judge (403 ``insufficient_scope`` without it); the rights on a report are
:mod:`app.reports.access`'s. Reports have their own rate limit (``TORCHDRILL_REPORTS_PER_MINUTE``),
in the app's limiter (per process, or in Redis when scaled out).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.deps import ReadCaller, SubmitCaller, TeachWriteCaller
from app.accounts.reset_pages import get_mailer
from app.kit.limits import RequestLimiter, app_limiter
from app.kit.links import public_url
from app.kit.web import SettingsDep
from app.reports.service import Notifier

LIMIT_WINDOW = "test-reports:"  # its Redis key, inside the deployment's namespace


async def get_report_limiter(request: Request) -> RequestLimiter:
    return app_limiter(request, LIMIT_WINDOW, "test reports")


async def get_notifier(request: Request, settings: SettingsDep) -> Notifier:
    return Notifier(get_mailer(request, settings), public_url(settings).rstrip("/"))


# The shared session-or-token callers (app.accounts.deps), named for what they do with a report.
ReportReader = ReadCaller
ReportFiler = SubmitCaller
ReportAnswerer = TeachWriteCaller
ReportLimiter = Annotated[RequestLimiter, Depends(get_report_limiter)]
NotifierDep = Annotated[Notifier, Depends(get_notifier)]
