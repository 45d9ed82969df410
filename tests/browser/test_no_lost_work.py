"""No lost work: code typed signed out follows the learner into a new account; authoring edits
are published exactly as they are on screen, and leaving with unsaved edits asks first."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Dialog, expect

from tests.browser.conftest import PASSWORD, Server, Visits

pytestmark = pytest.mark.browser

FREE = "add-tensors"


def test_code_typed_before_sign_up_becomes_the_server_draft(visits: Visits, server: Server) -> None:
    v = visits.new()
    page = v.page
    page.goto(f"/problems/{FREE}")
    editor = page.locator(".cm-content")
    expect(editor).to_be_visible()
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# typed-before-signup-91c")
    expect(editor).to_contain_text("typed-before-signup-91c")

    page.get_by_role("link", name="Sign up to run and submit").click()
    email = f"anon-{uuid.uuid4().hex[:8]}@example.com"
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("main").get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(rf"/problems/{FREE}$"))
    expect(page.locator(".cm-content")).to_contain_text("typed-before-signup-91c")
    expect(page.locator("#draft-status")).to_have_text("Draft saved")
    v.screenshot()

    elsewhere = visits.new("other-device")  # no local storage: the code must be on the server
    elsewhere.login(email, f"/problems/{FREE}")
    expect(elsewhere.page.locator(".cm-content")).to_contain_text("typed-before-signup-91c")


def test_publish_publishes_unsaved_edits_and_leaving_asks_first(visits: Visits, server: Server) -> None:
    teacher = visits.new("instructor")
    page = teacher.page
    teacher.login(server.accounts.author, "/authoring")
    slug = f"lost-work-{uuid.uuid4().hex[:6]}"
    page.goto("/authoring/new")
    page.get_by_label("Slug").fill(slug)
    page.get_by_label("Title").fill("Before")
    page.get_by_label("Track", exact=True).select_option("PyTorch Advanced")
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url(re.compile(rf"/authoring/problems/{slug}"))
    page.get_by_role("button", name="Publish", exact=True).click()
    page.wait_for_url(re.compile(r"notice=published"), timeout=60_000)
    expect(page.locator("#status")).to_contain_text("live v1")

    page.get_by_label("Title").fill("After, never saved")
    questions: list[str] = []

    def refuse(dialog: Dialog) -> None:
        questions.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", refuse)
    page.get_by_role("link", name="← All problems").click()
    expect(page.get_by_label("Title")).to_have_value("After, never saved")  # stayed on the page
    assert questions == ["beforeunload"]
    page.remove_listener("dialog", refuse)

    page.get_by_role("button", name="Publish", exact=True).click()  # no beforeunload: the form is submitted
    page.wait_for_url(re.compile(r"notice=published"), timeout=60_000)
    expect(page.locator("#status")).to_contain_text("live v2")
    expect(page.get_by_label("Title")).to_have_value("After, never saved")
    teacher.screenshot()
