"""The problem page around a verdict: a Problem/Code switch on a phone, the Solved badge and the next
problem right after Accepted, and the last result back after a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.accounts.premium import grant_premium
from app.accounts.service import get_user_by_email
from app.kit.db import utcnow
from tests.browser.conftest import Server, Visits
from tests.browser.editor import bank_file, replace_code, wait_verdict

pytestmark = pytest.mark.browser


def test_phone_layout_switches_between_problem_and_code(visits: Visits, server: Server) -> None:
    v = visits.new(viewport={"width": 390, "height": 844})
    page = v.page
    v.login(server.new_account(), "/problems/add-tensors")
    switch = page.locator("#pane-switch")
    expect(switch).to_be_visible()
    expect(page.locator("#problem-title")).to_be_visible()
    expect(page.locator(".cm-editor")).to_be_hidden()
    switch.get_by_role("button", name="Code").click()
    expect(switch.get_by_role("button", name="Code")).to_have_attribute("aria-pressed", "true")
    editor = page.locator(".cm-editor")
    expect(editor).to_be_visible()
    box = editor.bounding_box()
    assert box is not None and box["y"] < 844 / 2  # the editor is near the top, not after the statement
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot = v.screenshot("phone-code", full_page=False)
    assert shot.exists()
    switch.get_by_role("button", name="Problem").click()
    expect(page.locator("#problem-title")).to_be_visible()
    expect(editor).to_be_hidden()


def test_accepted_updates_the_badge_suggests_next_and_survives_reload(visits: Visits, server: Server) -> None:
    email = server.new_account()
    with server.database.transaction() as session:  # premium: the related Scale Rows is open to them
        grant_premium(session, get_user_by_email(session, email), 30, utcnow())
    v = visits.new()
    page = v.page
    v.login(email, "/problems/add-tensors")
    expect(page.locator("#solved-mark .mark-solved")).to_have_count(0)
    replace_code(page, bank_file("add-tensors"))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Accepted")
    expect(page.locator("#solved-mark .mark-solved")).to_be_visible()  # no reload needed
    next_link = page.locator("#next-problem a")
    expect(next_link).to_have_text("Scale Rows")
    v.screenshot("accepted")

    page.reload()
    expect(page.locator("#results-summary")).to_contain_text("Last submit: Accepted")
    expect(page.locator("#results-cases .case-passed").first).to_be_hidden()  # passing cases fold away
    page.locator("#results-cases .passed-fold > summary").click()
    expect(page.locator("#results-cases .case-passed").first).to_be_visible()
    expect(page.locator("#next-problem")).to_have_count(0)  # only right after the verdict
