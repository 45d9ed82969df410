"""Forgot password, end to end: the link arrives by mail (a local SMTP server), works once, ends sessions."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Visits

pytestmark = pytest.mark.browser

NEW_PASSWORD = "another horse battery"


def test_password_reset_by_email(visits: Visits, server: Server) -> None:
    email = server.new_account()
    signed_in = visits.new("other-device")
    signed_in.login(email)

    v = visits.new()
    page = v.page
    page.goto("/login")
    page.get_by_role("link", name="Forgot password?").click()
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Send me a link").click()
    expect(page.locator("#reset-sent")).to_contain_text("If an account exists")
    v.screenshot("sent")

    [mail] = server.smtp.wait_for(email)
    link = re.search(r"http://\S+/reset-password\?token=\S+", mail.get_content())
    assert link, mail.get_content()
    page.goto(link.group(0))
    page.get_by_label("New password").fill("short")
    page.get_by_role("button", name="Set new password").click()
    expect(page.locator(".field-error")).to_contain_text("at least 8 characters")
    page.get_by_label("New password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set new password").click()
    expect(page.locator("#reset-done")).to_be_visible()
    expect(page.get_by_label("Email")).to_have_value(email)
    page.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    page.locator("main").get_by_role("button", name="Log in").click()
    page.wait_for_url("**/problems")
    expect(page.locator("header")).to_contain_text(email)

    signed_in.page.goto("/problems")  # the session made before the reset has ended
    expect(signed_in.page.locator("header").get_by_role("link", name="Log in")).to_be_visible()
    page.goto(link.group(0))  # and the link was single-use
    expect(page.locator(".alert-error")).to_contain_text("not valid any more")
