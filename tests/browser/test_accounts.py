"""Signing up, and the premium gate as a free and a premium learner see it."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD, Server, Visits

pytestmark = pytest.mark.browser


def test_sign_up(visits: Visits) -> None:
    v = visits.new()
    page = v.page
    page.goto("/problems")
    page.locator("header").get_by_role("link", name="Sign up").click()
    email = f"new-{uuid.uuid4().hex[:8]}@example.com"
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("short")
    page.locator("main").get_by_role("button", name="Sign up").click()
    expect(page.locator(".field-error")).to_be_visible()  # a clear error next to the field
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("main").get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/problems")
    expect(page.locator("header")).to_contain_text(email)
    expect(page.locator("header").get_by_role("button", name="Log out")).to_be_visible()
    v.screenshot()


def test_premium_lock_for_free_and_editor_for_premium(visits: Visits, server: Server) -> None:
    free = visits.new("free")
    free.login(server.accounts.student)
    free.page.goto("/problems")
    locked_row = free.page.locator('tr[data-slug="modify-activations-hook"]')
    expect(locked_row.locator(".premium.locked")).to_be_visible()
    free.page.goto("/problems/modify-activations-hook")
    expect(free.page.locator("#editor-locked")).to_be_visible()
    expect(free.page.locator("#learn-locked")).to_be_attached()  # in the Learn tab
    expect(free.page.locator(".cm-editor")).to_have_count(0)
    expect(free.page.locator("#run-btn")).to_have_count(0)
    free.screenshot()

    paid = visits.new("premium")
    paid.login(server.accounts.premium)
    paid.page.goto("/problems/modify-activations-hook")
    expect(paid.page.locator(".cm-editor")).to_be_visible()
    expect(paid.page.locator("#run-btn")).to_be_enabled()
    expect(paid.page.locator("#editor-locked")).to_have_count(0)
    expect(paid.page.locator("#learn-locked")).to_have_count(0)
    paid.screenshot()


def test_form_errors_focus_the_field_and_link_to_log_in(visits: Visits, server: Server) -> None:
    v = visits.new()
    page = v.page
    page.goto("/signup")
    page.get_by_label("Email").fill(server.accounts.student)  # taken
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("main").get_by_role("button", name="Sign up").click()
    expect(page.get_by_label("Email")).to_be_focused()  # the first invalid field
    expect(page.get_by_label("Password", exact=False)).to_have_value(PASSWORD)  # only the email was wrong
    page.locator(".field-error").get_by_role("link", name="Log in instead").click()
    expect(page.get_by_label("Email")).to_have_value(server.accounts.student)
    v.screenshot()
