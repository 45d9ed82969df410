"""The Stripe webhook grants Premium once per event; replays, unsigned and wrongly signed events lose.

Events are signed here the way Stripe signs them (``Stripe-Signature: t=<time>,v1=<hex HMAC-SHA256
of "<time>.<body>" keyed by the endpoint secret>``); nothing leaves the machine.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.accounts.service import get_user_by_email
from app.billing.stripe_checkout import checkout_params
from app.kit.db import Database
from app.kit.settings import Settings
from app.main import create_app
from tests.app.conftest import Browser, settings_for

SECRET = "whsec_test_" + "k" * 24
PREMIUM_SLUG = "scale-rows"


def sign(body: bytes, secret: str = SECRET, at: int | None = None) -> str:
    stamp = int(time.time()) if at is None else at
    mac = hmac.new(secret.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={stamp},v1={mac}"


def completed_event(
    user_id: int, event_id: str | None = None, kind: str = "checkout.session.completed"
) -> bytes:
    session = {
        "object": "checkout.session",
        "id": "cs_test_1",
        "client_reference_id": str(user_id),
        "payment_status": "paid",
        "metadata": {"torchdrill_user_id": str(user_id)},
    }
    event = {
        "id": event_id or f"evt_{uuid.uuid4().hex}",
        "object": "event",
        "type": kind,
        "data": {"object": session},
    }
    return json.dumps(event).encode()


@pytest.fixture
def billing_app(seeded: Database, runner: Any, db: Database) -> Iterator[FastAPI]:
    base = settings_for(seeded.url)
    settings = Settings(
        **{**base.model_dump(), "billing_provider": "stripe", "stripe_secret_key": "sk_test_unused",
           "stripe_webhook_secret": SECRET, "stripe_price_id": "price_test_1"}
    )  # fmt: skip
    yield create_app(settings, database=seeded, runner=runner)


def _learner(app: FastAPI, db: Database) -> tuple[Browser, int]:
    learner = Browser(app)
    assert learner.signup().status_code == 303
    with db.transaction() as session:
        user_id = get_user_by_email(session, learner.email or "").id
    return learner, user_id


def post_event(app: FastAPI, body: bytes, signature: str | None) -> Any:
    headers = {"Content-Type": "application/json"}
    if signature is not None:
        headers["Stripe-Signature"] = signature
    return TestClient(app).post("/api/billing/webhook", content=body, headers=headers)


def test_a_signed_purchase_grants_premium_once_and_a_replay_grants_nothing(
    billing_app: FastAPI, db: Database
) -> None:
    learner, user_id = _learner(billing_app, db)
    assert 'id="editor-locked"' in learner.get(f"/problems/{PREMIUM_SLUG}").text

    body = completed_event(user_id)
    first = post_event(billing_app, body, sign(body))
    assert first.status_code == 200 and first.json()["outcome"] == "granted"
    page = learner.get(f"/problems/{PREMIUM_SLUG}").text
    assert 'id="editor-locked"' not in page and 'id="editor"' in page

    replay = post_event(billing_app, body, sign(body))  # Stripe retries; an attacker replays
    assert replay.status_code == 200 and replay.json()["outcome"] == "duplicate"
    with db.transaction() as session:
        grants = get_user_by_email(session, learner.email or "").premium_grants
        assert [g.source for g in grants] == ["billing"]


def test_bad_signatures_are_refused_and_grant_nothing(billing_app: FastAPI, db: Database) -> None:
    learner, user_id = _learner(billing_app, db)
    body = completed_event(user_id)
    cases = {
        "unsigned": None,
        "wrong secret": sign(body, secret="whsec_someone_else"),
        "too old": sign(body, at=int(time.time()) - 3600),
        "garbage": "t=1,v1=00",
        "body changed after signing": sign(completed_event(user_id + 1)),
    }
    for name, signature in cases.items():
        refused = post_event(billing_app, body, signature)
        assert refused.status_code == 400, name
        assert refused.json()["error"] == "bad_signature", name
    assert 'id="editor-locked"' in learner.get(f"/problems/{PREMIUM_SLUG}").text


def test_other_events_and_unknown_buyers_are_recorded_without_a_grant(
    billing_app: FastAPI, db: Database
) -> None:
    learner, user_id = _learner(billing_app, db)
    other = completed_event(user_id, kind="payment_intent.created")
    assert post_event(billing_app, other, sign(other)).json()["outcome"] == "ignored"
    stranger = completed_event(10**9)
    assert post_event(billing_app, stranger, sign(stranger)).json()["outcome"] == "unknown_user"
    assert 'id="editor-locked"' in learner.get(f"/problems/{PREMIUM_SLUG}").text


def test_billing_is_off_by_default(browser: Browser) -> None:
    body = completed_event(1)
    off = browser.post("/api/billing/webhook", content=body, headers={"Stripe-Signature": sign(body)})
    assert off.status_code == 404 and off.json()["error"] == "billing_off"
    page = browser.get(f"/problems/{PREMIUM_SLUG}").text
    assert 'id="buy-premium"' not in page and "Premium code" in page


def test_the_unlock_card_offers_buying_when_billing_is_on(billing_app: FastAPI, db: Database) -> None:
    learner, _ = _learner(billing_app, db)
    page = learner.get(f"/problems/{PREMIUM_SLUG}").text
    assert 'id="buy-premium"' in page and 'action="/account/redeem"' in page
    assert 'id="results"' not in page and 'id="history"' not in page  # no empty cards on a locked page


def test_the_checkout_session_names_the_buyer_and_comes_back_to_the_problem() -> None:
    params = checkout_params("price_1", 42, "a@example.com", "https://x.test/problems/p?purchase=done",
                             "https://x.test/problems/p")  # fmt: skip
    assert params["client_reference_id"] == "42" and params["mode"] == "payment"
    assert params["line_items"] == [{"price": "price_1", "quantity": 1}]


def test_stripe_billing_without_its_keys_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="TORCHDRILL_STRIPE_WEBHOOK_SECRET"):
        Settings(billing_provider="stripe", stripe_secret_key="sk", stripe_price_id="price")
