"""The account page in Chromium: where you're signed in (end one, sign out everywhere), and a
token made with chosen scopes and expiry, then listed with them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.kit.db import utcnow
from tests.browser.conftest import Server, Visits
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def test_sessions_and_tokens_on_the_account_page(visits: Visits, server: Server) -> None:
    email = server.new_account()
    laptop = visits.new("laptop")
    laptop.login(email, "/account")
    phone = visits.new("phone", viewport=PHONE)
    phone.login(email, "/account")
    page = phone.page
    rows = page.locator("#session-list tr.session-row")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="(this browser)")).to_have_count(1)
    assert not axe_findings(page), axe_findings(page)

    # A token that may only read, for 30 days.
    page.locator("#token-name").fill("reader")
    page.locator('input[name="scope"][value="submit"]').uncheck()
    expect(page.locator('input[name="scope"][value="teach"]')).to_have_count(0)  # a student's page
    page.get_by_label("Expires").select_option("30")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token")).to_contain_text("td_")
    row = page.locator("#token-list tr.token-row", has_text="reader")
    expect(row).to_contain_text("read")
    expect(row).not_to_contain_text("submit")
    expect(row).to_contain_text((utcnow() + timedelta(days=30)).strftime("%Y-%m-%d"))
    phone.screenshot("token")

    # End the laptop's session from the phone: the laptop is signed out, the phone is not.
    page.goto("/account#sessions")
    rows.filter(has_not_text="(this browser)").get_by_role(
        "button", name=re.compile("^Sign out session")
    ).click()
    expect(page.locator("#notice")).to_contain_text("signed out")
    expect(rows).to_have_count(1)
    laptop.page.goto("/account")
    laptop.page.wait_for_url(re.compile(r"/login\?next="))

    # Sign out everywhere: this browser too.
    page.get_by_role("button", name="Sign out everywhere").click()
    page.wait_for_url(re.compile(r"/login$"))
    page.goto("/account")
    page.wait_for_url(re.compile(r"/login\?next="))
