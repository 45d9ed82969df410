"""The upgrade path: the unlock card offers a code and a purchase; a signed Stripe webhook then
unlocks the problem, and the learner solves it."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.request
import uuid

import pytest
from playwright.sync_api import expect

from app.accounts.service import get_user_by_email
from tests.browser.conftest import WEBHOOK_SECRET, Server, Visits
from tests.browser.editor import bank_file, replace_code, wait_verdict

pytestmark = pytest.mark.browser

PREMIUM = "scale-rows"  # a premium problem of the test bank


def post_signed_purchase(server: Server, user_id: int) -> dict[str, object]:
    """What Stripe sends after a paid Checkout, signed the way Stripe signs it."""
    body = json.dumps({
        "id": f"evt_{uuid.uuid4().hex}", "object": "event", "type": "checkout.session.completed",
        "data": {"object": {"object": "checkout.session", "client_reference_id": str(user_id),
                            "payment_status": "paid"}},
    }).encode()  # fmt: skip
    stamp = int(time.time())
    mac = hmac.new(WEBHOOK_SECRET.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    request = urllib.request.Request(
        f"{server.url}/api/billing/webhook",
        data=body,
        headers={"Content-Type": "application/json", "Stripe-Signature": f"t={stamp},v1={mac}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, object] = json.load(response)
    return answer


def test_webhook_granted_premium_then_solving_a_premium_problem(visits: Visits, server: Server) -> None:
    email = server.new_account()
    v = visits.new()
    page = v.page
    v.login(email, f"/problems/{PREMIUM}")
    card = page.locator("#editor-locked")
    expect(card).to_be_visible()
    expect(card.get_by_label("Premium code from your instructor")).to_be_visible()
    expect(card.get_by_role("button", name="Buy Premium")).to_be_visible()
    expect(page.locator("#results")).to_have_count(0)  # no empty cards on a locked page
    expect(page.locator("#history")).to_have_count(0)
    v.screenshot("locked")

    with server.database.transaction() as session:
        user_id = get_user_by_email(session, email).id
    assert post_signed_purchase(server, user_id)["outcome"] == "granted"

    page.reload()
    expect(page.locator("#editor-locked")).to_have_count(0)
    replace_code(page, bank_file(PREMIUM))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Accepted")
    v.screenshot("solved")
