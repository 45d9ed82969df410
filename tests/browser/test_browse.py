"""Anonymous visitors: the list with its filters in the URL, problem pages, and reading without JavaScript."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Visits

pytestmark = pytest.mark.browser


def test_browse_anonymously(visits: Visits) -> None:
    v = visits.new()
    page = v.page
    page.goto("/problems")
    expect(page.get_by_role("heading", name="Problems", level=1)).to_be_visible()
    rows = page.locator("tr.problem-row")
    expect(rows.first).to_be_visible()
    total = rows.count()
    assert total >= 8

    page.get_by_label("Difficulty").select_option("easy")  # applied at once, and kept in the URL
    page.wait_for_url(re.compile(r"/problems\?difficulty=easy$"))
    expect(page.get_by_label("Difficulty")).to_have_value("easy")
    assert 0 < rows.count() < total
    page.get_by_label("Search").fill("hook")
    page.get_by_label("Search").press("Enter")
    page.wait_for_url(re.compile(r"difficulty=easy&q=hook|q=hook&difficulty=easy"))
    page.reload()  # the URL alone restores the filters
    expect(page.get_by_label("Search")).to_have_value("hook")
    expect(page.get_by_label("Difficulty")).to_have_value("easy")
    page.go_back()
    page.wait_for_url(re.compile(r"/problems\?difficulty=easy$"))

    page.goto("/problems?q=forward")
    page.get_by_role("link", name="Register Forward Hook to Capture Activations").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Register Forward Hook to Capture Activations")
    expect(page.locator("#panel-statement")).to_be_visible()
    expect(page.locator("#panel-learn")).to_be_hidden()
    learn = page.get_by_role("tab", name="Learn")
    learn.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#panel-learn")).to_be_visible()
    page.keyboard.press("ArrowLeft")  # keyboard navigation between tabs
    expect(page.get_by_role("tab", name="Problem")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#acceptance")).to_contain_text("Acceptance")
    expect(page.locator("#login-to-run")).to_be_visible()  # no Run for visitors, a way to log in instead

    page.get_by_role(
        "button", name=re.compile("switch to (dark|light) theme", re.IGNORECASE)
    ).click()  # themes for everyone
    theme = page.evaluate("document.documentElement.dataset.theme")
    assert theme in ("dark", "light")
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    v.screenshot("problem-anonymous")

    page.goto("/problems/modify-activations-hook")  # premium: statement yes, editor no
    expect(page.locator("#editor-locked")).to_be_visible()
    expect(page.locator(".cm-editor")).to_have_count(0)


def test_reading_works_without_javascript(visits: Visits) -> None:
    v = visits.new(java_script_enabled=False)
    page = v.page
    page.goto("/problems/forward-hook-activations")
    expect(page.get_by_role("heading", level=1)).to_have_text("Register Forward Hook to Capture Activations")
    expect(page.locator("#panel-statement h2").first).to_be_visible()
    expect(page.locator("#panel-learn")).to_be_visible()  # without JS: no tabs, both sections in turn
    expect(page.locator("#learn .learn-title")).to_have_text("Learn")
    expect(page.locator("textarea#code")).to_be_visible()  # the starter code is readable too
    expect(page.locator("textarea#code")).to_have_value(re.compile("def forward_hook_test"))
    page.goto("/problems?difficulty=medium")  # filters are a plain form: the URL is the state
    expect(page.get_by_label("Difficulty")).to_have_value("medium")
    v.screenshot()


# Every visible form control must have an accessible name (label, aria-label, aria-labelledby or text).
UNLABELLED = """() => Array.from(document.querySelectorAll(
    'button, input, select, textarea, [role="tab"], a[href]'))
  .filter((el) => el.type !== 'hidden' && el.offsetParent !== null)
  .filter((el) => {
    const byLabel = el.id && document.querySelector('label[for="' + el.id + '"]');
    const byAria = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
    const byText = (el.textContent || '').trim() || el.getAttribute('title');
    return !(byLabel || byAria || byText || el.closest('label'));
  })
  .map((el) => el.outerHTML.slice(0, 120))"""


def test_small_screen_and_labelled_controls(visits: Visits, server: Server) -> None:
    v = visits.new(viewport={"width": 390, "height": 844})
    page = v.page
    v.login(server.accounts.student, "/problems")
    assert page.evaluate(UNLABELLED) == []
    page.goto("/problems/forward-hook-activations")
    assert page.evaluate(UNLABELLED) == []
    page.locator("#pane-switch").get_by_role("button", name="Code").click()  # one pane at a time
    for selector in (".cm-editor", "#run-btn", "#submit-btn", "#results"):
        expect(page.locator(selector)).to_be_visible()
    editor_box = page.locator(".cm-editor").bounding_box()
    assert editor_box and editor_box["width"] <= 390 and editor_box["height"] >= 180
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    page.get_by_role("button", name="Switch to dark theme").click()
    v.screenshot(full_page=False)
