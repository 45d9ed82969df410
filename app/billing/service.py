"""Granting bought Premium exactly once per provider event."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import premium
from app.accounts import service as accounts
from app.billing import repository
from app.billing.models import BillingEvent
from app.billing.provider import PURCHASE_COMPLETED, BillingOff, BillingProvider, PaymentEvent
from app.billing.stripe_checkout import StripeCheckout
from app.kit.settings import Settings

Outcome = Literal["granted", "duplicate", "ignored", "unknown_user"]


@dataclass(frozen=True)
class WebhookResult:
    outcome: Outcome
    event_id: str


def provider_for(settings: Settings) -> BillingProvider | None:
    """The configured provider, or None when billing is off (the default)."""
    if settings.billing_provider != "stripe":
        return None
    assert settings.stripe_secret_key and settings.stripe_webhook_secret and settings.stripe_price_id
    return StripeCheckout(
        settings.stripe_secret_key, settings.stripe_webhook_secret, settings.stripe_price_id
    )


def enabled(settings: Settings) -> bool:
    return settings.billing_provider != "off"


def require_provider(settings: Settings) -> BillingProvider:
    provider = provider_for(settings)
    if provider is None:
        raise BillingOff()
    return provider


def record_event(
    session: Session, provider: str, event: PaymentEvent, *, days: int, now: datetime
) -> WebhookResult:
    """Act on a verified event once: its id is stored with the grant, and a replay finds it.

    Events we do not act on are stored too, so a replay of any event answers "duplicate".
    """
    if repository.get_event(session, event.event_id) is not None:
        return WebhookResult("duplicate", event.event_id)
    user = accounts.get_user(session, event.user_id) if event.user_id is not None else None
    outcome: Outcome = "ignored"
    if event.kind == PURCHASE_COMPLETED:
        outcome = "granted" if user is not None else "unknown_user"
    try:
        with session.begin_nested():
            row = repository.add_event(
                session,
                BillingEvent(
                    event_id=event.event_id,
                    provider=provider,
                    kind=event.kind,
                    user_id=user.id if user else None,
                    received_at=now,
                ),
            )
            if outcome == "granted" and user is not None:
                row.grant_id = premium.grant_purchased_premium(session, user, days, now).id
                session.flush()
    except IntegrityError:  # the same event delivered twice at once: the other delivery granted it
        return WebhookResult("duplicate", event.event_id)
    return WebhookResult(outcome, event.event_id)
