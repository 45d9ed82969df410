"""What the app needs from a payment provider; Stripe is one implementation (``stripe_checkout``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from app.kit.errors import AppError

PURCHASE_COMPLETED = "purchase_completed"


class BadSignature(AppError):
    """The webhook was not signed with our secret (or is too old): nothing in it is believed."""

    status_code = 400
    code = "bad_signature"
    default_detail = "The webhook signature is missing, wrong or too old."


class BillingOff(AppError):
    status_code = 404
    code = "billing_off"
    default_detail = (
        "Buying Premium is not available on this site. Ask your instructor for a Premium code "
        "and redeem it on your account page."
    )


@dataclass(frozen=True)
class PaymentEvent:
    """A verified provider event, reduced to what granting needs."""

    event_id: str
    kind: str  # PURCHASE_COMPLETED, or the provider's own type for events we ignore
    user_id: int | None


class BillingProvider(Protocol):
    name: str

    def checkout_url(self, user_id: int, email: str, success_url: str, cancel_url: str) -> str:
        """Start a purchase of Premium for ``user_id``; the URL to send the buyer to."""
        ...

    def verify_event(self, payload: bytes, signature: str | None) -> PaymentEvent:
        """Check the webhook's signature and parse it; raises :class:`BadSignature`."""
        ...
