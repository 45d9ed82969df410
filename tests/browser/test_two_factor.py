"""Two-factor sign-in in Chromium: turn it on from the account page (QR code, key, password and a
code), save the recovery codes, sign out, sign in with a code from the app, then with a recovery
code (once only). axe-core runs on every page of the way, in both themes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from app.accounts import totp
from app.kit.db import utcnow
from tests.browser.conftest import PASSWORD, Server, Visits
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser


def no_axe_findings(page: Page, state: str) -> None:
    for theme in ("light", "dark"):
        page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        found = axe_findings(page)
        assert not found, (state, theme, found)


class App:
    """The authenticator app on the phone: the key it was given, and the last code it showed."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.last_step = -1

    def code(self) -> str:
        """The current code, or the next one if the current one was used (servers take ±1 step)."""
        current = totp.step_at(utcnow())
        self.last_step = max(self.last_step + 1, current)
        assert self.last_step <= current + 1, "the test signs in more than twice in 30 s"
        return totp.code_at(self.secret, self.last_step)


def password_step(page: Page, email: str) -> None:
    page.goto("/login?next=/problems")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("main").get_by_role("button", name="Log in").click()
    page.wait_for_url("**/login/two-factor")


def sign_out(page: Page) -> None:
    page.locator("header").get_by_role("button", name="Log out").click()
    expect(page.locator("header").get_by_role("link", name="Log in")).to_be_visible()


def test_enrol_then_sign_in_with_a_code_and_with_a_recovery_code(visits: Visits, server: Server) -> None:
    email = server.new_account()
    v = visits.new()
    page = v.page
    v.login(email, "/account")
    page.get_by_role("link", name="Manage two-factor sign-in").click()
    expect(page.get_by_role("heading", name="Off")).to_be_visible()
    no_axe_findings(page, "off")
    page.get_by_role("button", name="Set up two-factor sign-in").click()
    qr = page.get_by_role("img", name="QR code for adding")
    expect(qr).to_be_visible()
    assert qr.locator("svg").bounding_box()["width"] >= 100  # type: ignore[index]
    expect(page.locator("#totp-uri")).to_contain_text("otpauth://totp/Torchdrill")
    no_axe_findings(page, "set-up")
    v.screenshot("setup")
    phone = App(page.locator("#totp-secret").inner_text().replace(" ", ""))

    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_label("6-digit code from the app").fill("000000" if phone.code() != "000000" else "111111")
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    expect(page.locator(".field-error")).to_contain_text("not correct")
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_label("6-digit code from the app").fill(totp.code_at(phone.secret, phone.last_step))
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    codes_list = page.locator("#recovery-code-list li")
    expect(codes_list).to_have_count(totp.RECOVERY_CODES)
    recovery = [c.strip() for c in codes_list.all_inner_texts()]
    no_axe_findings(page, "recovery codes")
    v.screenshot("recovery-codes")
    page.get_by_role("link", name="I have saved them").click()
    expect(page.locator("#two-factor-status")).to_contain_text("On since")
    sign_out(page)

    password_step(page, email)  # with a code from the app
    no_axe_findings(page, "second step")
    page.get_by_label("Code").fill(phone.code())
    page.get_by_role("button", name="Verify").click()
    page.wait_for_url("**/problems")
    expect(page.locator("header")).to_contain_text(email)
    sign_out(page)

    password_step(page, email)  # with a recovery code: it works once
    page.get_by_label("Code").fill(recovery[0])
    page.get_by_role("button", name="Verify").click()
    page.wait_for_url("**/account/two-factor")
    expect(page.locator("#notice")).to_contain_text("recovery code")
    expect(page.locator("#codes-left")).to_contain_text(f"{totp.RECOVERY_CODES - 1} unused")
    no_axe_findings(page, "signed in with a recovery code")
    v.screenshot("recovery-used")
    sign_out(page)

    other = visits.new("used-again").page
    password_step(other, email)
    other.get_by_label("Code").fill(recovery[0])
    other.get_by_role("button", name="Verify").click()
    expect(other.locator(".field-error")).to_contain_text("used already")
    no_axe_findings(other, "wrong code")
    expect(other.locator("header").get_by_role("link", name="Log in")).to_be_visible()
