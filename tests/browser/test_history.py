"""The history: load a past submission into the editor (with Undo), and diff two submissions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.accounts.service import get_user_by_email
from app.kit.db import utcnow
from tests.app.courses.helpers import stored_submit
from tests.browser.conftest import Server, Visits
from tests.browser.editor import replace_code, wait_verdict

pytestmark = pytest.mark.browser

SLUG = "add-tensors"
FIRST = "def add(a, b):\n    return a - b\n"
SECOND = "def add(a, b):\n    total = a + b\n    return total\n"


def test_load_a_past_submission_and_diff_two(visits: Visits, server: Server) -> None:
    v = visits.new()
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    replace_code(page, FIRST)
    page.get_by_role("button", name="Run").click()
    wait_verdict(page, "Differs from the reference")
    replace_code(page, SECOND)
    page.keyboard.press("Control+Enter")
    wait_verdict(page, "Matches the reference")
    rows = page.locator("#history-list li")
    expect(rows).to_have_count(2)
    first_id = rows.nth(1).get_attribute("data-id")
    second_id = rows.nth(0).get_attribute("data-id")

    page.get_by_role("button", name=f"Load the code of #{first_id} into the editor").click()
    content = page.locator(".cm-content")
    expect(content).to_contain_text("return a - b")
    expect(page.locator("#reset-undo")).to_contain_text(f"Loaded the code of submission #{first_id}")
    page.get_by_role("button", name="Undo").click()
    expect(content).to_contain_text("total = a + b")
    expect(content).not_to_contain_text("return a - b")

    page.get_by_label(f"Compare #{first_id}").check()
    expect(page.locator("#history-compare")).to_contain_text("Pick one more")
    page.get_by_label(f"Compare #{second_id}").check()
    page.get_by_role("link", name="Show the line diff").click()
    page.wait_for_url(f"**/submissions/{first_id}/compare/{second_id}")
    expect(page.locator("#diff-summary")).to_contain_text("1 line removed, 2 added")
    expect(page.locator("tr.diff-removed")).to_contain_text("return a - b")
    expect(page.locator("tr.diff-added").first).to_contain_text("total = a + b")
    v.screenshot("diff")
    page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
    v.screenshot("diff-dark")
    page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")


def test_older_submissions_load_page_by_page(visits: Visits, server: Server) -> None:
    email = server.new_account()
    with server.database.transaction() as session:  # 45 stored verdicts, oldest first
        who = get_user_by_email(session, email)
        assert who is not None
        start = utcnow() - timedelta(hours=1)
        ids = [stored_submit(session, who, SLUG, start + timedelta(seconds=i)).id for i in range(45)]
    v = visits.new()
    page = v.page
    v.login(email, f"/problems/{SLUG}")
    rows = page.locator("#history-list li[data-id]")
    older = page.get_by_role("button", name="Older submissions")
    expect(rows).to_have_count(20)
    older.click()
    expect(rows).to_have_count(40)
    older.click()
    expect(rows).to_have_count(45)
    expect(older).to_be_hidden()
    shown = [int(rows.nth(i).get_attribute("data-id") or 0) for i in range(45)]
    assert shown == sorted(ids, reverse=True)
    # An older row works like the others: its code loads into the editor.
    page.get_by_role("button", name=f"Load the code of #{ids[0]} into the editor").click()
    expect(page.locator("#reset-undo")).to_contain_text(f"Loaded the code of submission #{ids[0]}")
    # A new verdict brings the list back to its first page, with the control again.
    replace_code(page, SECOND)
    page.get_by_role("button", name="Run").click()
    wait_verdict(page, "Matches the reference")
    expect(rows).to_have_count(20)
    expect(older).to_be_visible()
    v.screenshot("history-older")
