"""Buying Premium: start a Checkout (a form post from the unlock card), and the provider's webhook.

The webhook carries no session and no CSRF token: the provider's signature is its only credential,
so it is checked before anything in the body is read.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from app.accounts.deps import CurrentUser
from app.accounts.pages import safe_next
from app.billing import service
from app.kit.db import utcnow
from app.kit.links import absolute_url
from app.kit.web import CsrfProtected, SessionDep, SettingsDep

router = APIRouter(tags=["billing"])


@router.post("/billing/checkout", dependencies=[CsrfProtected])
def start_checkout(
    user: CurrentUser,
    settings: SettingsDep,
    next: Annotated[str, Form(max_length=500)] = "",
) -> RedirectResponse:
    provider = service.require_provider(settings)
    back = safe_next(next)
    done = absolute_url(settings, back) + ("&" if "?" in back else "?") + "purchase=done"
    url = provider.checkout_url(user.id, user.email, done, absolute_url(settings, back))
    return RedirectResponse(url, status_code=303)


@router.post("/api/billing/webhook")
async def webhook(request: Request, session: SessionDep, settings: SettingsDep) -> dict[str, Any]:
    provider = service.require_provider(settings)
    event = provider.verify_event(await request.body(), request.headers.get("stripe-signature"))
    result = service.record_event(
        session, provider.name, event, days=settings.billing_premium_days, now=utcnow()
    )
    return {"received": True, "event": result.event_id, "outcome": result.outcome}
