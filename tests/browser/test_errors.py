"""Errors you can act on: the failing line is marked in the editor, with a button that shows it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Visits
from tests.browser.editor import replace_code, wait_verdict

pytestmark = pytest.mark.browser

RAISES_ON_LINE_6 = """import torch


def add(a, b):
    total = a + b
    raise RuntimeError("boom on purpose")
"""


def test_the_failing_line_is_marked_in_the_editor(visits: Visits, server: Server) -> None:
    v = visits.new()
    page = v.page
    v.login(server.accounts.student, "/problems/add-tensors")
    replace_code(page, RAISES_ON_LINE_6)
    page.get_by_role("button", name="Run").click()
    wait_verdict(page, "Runtime Error")
    marked = page.locator(".cm-editor .cm-error-line")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text('raise RuntimeError("boom on purpose")')
    expect(page.locator(".cm-error-gutter .cm-error-marker")).to_have_count(1)
    jump = page.locator("#error-jump")
    expect(jump).to_have_text("Show line 6 in the editor")
    jump.click()
    expect(page.locator(".cm-content")).to_be_focused()
    v.screenshot()

    replace_code(page, RAISES_ON_LINE_6.replace("    raise", "    return total\n    raise"))
    page.get_by_role("button", name="Run").click()
    wait_verdict(page, "Matches the reference")
    expect(page.locator(".cm-editor .cm-error-line")).to_have_count(0)  # cleared by the next run
