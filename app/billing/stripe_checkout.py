"""Stripe Checkout: a hosted payment page, and the ``checkout.session.completed`` webhook.

The buyer's user id travels as ``client_reference_id`` (set by us when creating the session), so
the webhook needs no lookup by email. Signatures are checked by the ``stripe`` library
(``Stripe-Signature: t=<unix time>,v1=<HMAC-SHA256 of "<t>.<body>" with the endpoint secret>``,
five minutes of tolerance); only then is the body parsed, as plain JSON.
"""

from __future__ import annotations

import json
from typing import Any

import stripe

from app.billing.provider import PURCHASE_COMPLETED, BadSignature, PaymentEvent

COMPLETED = "checkout.session.completed"
TOLERANCE_S = 300


def checkout_params(
    price_id: str, user_id: int, email: str, success_url: str, cancel_url: str
) -> dict[str, Any]:
    """The Checkout Session we ask Stripe for: one Premium purchase, paid once."""
    return {
        "mode": "payment",
        "line_items": [{"price": price_id, "quantity": 1}],
        "client_reference_id": str(user_id),
        "customer_email": email,
        "metadata": {"torchdrill_user_id": str(user_id)},
        "success_url": success_url,
        "cancel_url": cancel_url,
    }


def _user_id(session: Any) -> int | None:
    raw = session.get("client_reference_id") or (session.get("metadata") or {}).get("torchdrill_user_id")
    try:
        return int(raw) if raw is not None else None
    except (TypeError, ValueError):
        return None


class StripeCheckout:
    name = "stripe"

    def __init__(self, secret_key: str, webhook_secret: str, price_id: str) -> None:
        self._client = stripe.StripeClient(secret_key)
        self._webhook_secret = webhook_secret
        self._price_id = price_id

    def checkout_url(self, user_id: int, email: str, success_url: str, cancel_url: str) -> str:
        params = checkout_params(self._price_id, user_id, email, success_url, cancel_url)
        session = self._client.v1.checkout.sessions.create(params=params)  # type: ignore[arg-type]
        if not session.url:
            raise RuntimeError("Stripe returned a Checkout Session without a URL")
        return str(session.url)

    def verify_event(self, payload: bytes, signature: str | None) -> PaymentEvent:
        if not signature:
            raise BadSignature("The request has no Stripe-Signature header.")
        try:
            stripe.WebhookSignature.verify_header(payload, signature, self._webhook_secret, TOLERANCE_S)
        except stripe.SignatureVerificationError as exc:
            raise BadSignature() from exc
        try:  # only a verified body is parsed
            event = json.loads(payload)
            if not isinstance(event["data"]["object"], dict) or not event["id"] or not event["type"]:
                raise ValueError("not an event")
        except (ValueError, KeyError, TypeError) as exc:
            raise BadSignature("The webhook body is not a Stripe event.") from exc
        if event["type"] != COMPLETED:
            return PaymentEvent(event_id=str(event["id"]), kind=str(event["type"]), user_id=None)
        session = event["data"]["object"]
        paid = session.get("payment_status") in (None, "paid", "no_payment_required")
        return PaymentEvent(
            event_id=str(event["id"]),
            kind=PURCHASE_COMPLETED if paid else f"{COMPLETED}:unpaid",
            user_id=_user_id(session),
        )
