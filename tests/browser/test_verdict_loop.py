"""The learner's loop on the problem page (issue #40, parts 1 and 2), keyboard only, desktop and phone.

After Run and Submit the verdict is in view, focused and announced once (the one live region's text
changes once per run); passing cases are folded; Tab never silently edits code (the hint says how
to leave, Esc then Tab leaves, also with suggestions open); axe finds nothing serious in any state.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server, Visits
from tests.browser.editor import VERDICT_TIMEOUT_MS, bank_file, replace_code, wait_verdict
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser

SLUG = "add-tensors"
DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
WATCH_ANNOUNCER = """() => {
  window.__announced = [];
  const node = document.getElementById('verdict-announce');
  new MutationObserver(() => window.__announced.push(node.textContent))
    .observe(node, {childList: true, characterData: true, subtree: true});
}"""


def announced(page: Page) -> list[str]:
    texts: list[str] = page.evaluate("() => window.__announced")
    return texts


def in_viewport(page: Page, selector: str) -> bool:
    box: dict[str, Any] = page.evaluate(
        """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
                      return {top: r.top, bottom: r.bottom, h: innerHeight}; }""",
        selector,
    )
    assert box["top"] >= 0 and box["bottom"] <= box["h"], f"{selector} is off-screen: {box}"
    return True


def open_code(page: Page) -> None:
    """On a phone the page shows one pane at a time: switch to the code (by keyboard)."""
    switch = page.locator("#pane-switch")
    if switch.is_visible():
        button = switch.get_by_role("button", name="Code")
        button.focus()
        page.keyboard.press("Enter")
    expect(page.locator(".cm-content")).to_be_visible()


def axe_clean(page: Page, state: str, found: dict[str, list[str]]) -> None:
    for theme in ("light", "dark"):
        page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        problems = axe_findings(page)
        if problems:
            found[f"{state} [{theme}]"] = problems


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_verdict_is_in_view_focused_and_announced_once(
    visits: Visits, server: Server, viewport: dict[str, int]
) -> None:
    v = visits.new(viewport=viewport)
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    open_code(page)
    page.evaluate(WATCH_ANNOUNCER)
    replace_code(page, "def add(a, b):\n    return a - b\n")
    page.keyboard.press("Control+Enter")  # Run from the editor
    wait_verdict(page, "Differs from the reference")
    expect(page.locator("#results-summary")).to_be_focused()
    assert in_viewport(page, "#results-summary"), "the verdict is off-screen after Run"
    expect(page.locator("#verdict-announce")).to_contain_text("Differs from the reference")
    assert len(announced(page)) == 1, announced(page)  # not Queued, Running, every case
    assert page.locator("#results").get_attribute("aria-live") is None  # the card is not re-read

    replace_code(page, bank_file(SLUG))
    page.keyboard.press("Control+Shift+Enter")  # Submit from the editor
    wait_verdict(page, "Accepted")
    expect(page.locator("#results-summary")).to_be_focused()
    assert in_viewport(page, "#results-summary"), "the verdict is off-screen after Submit"
    assert len(announced(page)) == 2, announced(page)
    expect(page.locator("#verdict-announce")).to_contain_text("Accepted")
    fold = page.locator("#results-cases .passed-fold")  # every case passed: folded into one line
    expect(fold.locator("summary")).to_contain_text("cases passed")
    expect(page.locator("#results-cases .case-passed").first).to_be_hidden()

    page.get_by_role("button", name="Run").click()  # the same verdict again still changes the region once
    page.wait_for_function("() => window.__announced.length >= 3", timeout=VERDICT_TIMEOUT_MS)
    expect(page.locator("#results-summary")).to_be_focused()
    expect(page.locator("#run-btn")).to_be_enabled()
    assert len(announced(page)) == 3, announced(page)
    v.screenshot("verdict")


def test_failing_cases_lead_and_passing_ones_fold(visits: Visits, server: Server) -> None:
    v = visits.new(viewport=DESKTOP)
    page = v.page
    v.login(server.new_account(), "/problems/forward-hook-activations")
    replace_code(page, bank_file("forward-hook-activations", "mutants/stores_inputs.py"))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Wrong Answer")
    cases = page.locator("#results-cases > li")
    expect(cases.first).to_have_class("case-fold")  # "N passed cases", closed
    expect(page.locator("#results-cases > li.case-failed").first).to_be_visible()
    expect(page.locator("#results-cases .passed-fold")).not_to_have_attribute("open", "")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_tab_never_silently_edits_code(visits: Visits, server: Server, viewport: dict[str, int]) -> None:
    v = visits.new(viewport=viewport)
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    open_code(page)
    code = "import torch\n\ndef add(a, b):\n    return a + b\n"
    replace_code(page, code)
    content = page.locator(".cm-content")
    hint = page.locator("#editor-hint")
    expect(hint).to_be_visible()  # said on screen ...
    expect(hint).to_contain_text("Esc then Tab leaves the editor")
    assert content.get_attribute("aria-describedby") == "editor-hint"  # ... and to a screen reader

    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    expect(content).not_to_be_focused()
    assert page.evaluate("() => document.activeElement.id") == "shortcuts-btn"
    expect(content).to_have_text(code.replace("\n", ""), use_inner_text=False)

    content.click()  # with suggestions open, Esc closes them and frees Tab in one press
    page.keyboard.press("Control+End")
    page.keyboard.type("\n    torch.")
    page.keyboard.press("Control+Space")
    expect(page.locator(".cm-tooltip-autocomplete")).to_be_visible()
    typed = page.evaluate("() => document.querySelector('.cm-content').innerText")
    page.keyboard.press("Escape")
    expect(page.locator(".cm-tooltip-autocomplete")).to_have_count(0)
    page.keyboard.press("Tab")
    expect(content).not_to_be_focused()
    assert page.evaluate("() => document.querySelector('.cm-content').innerText") == typed

    page.keyboard.press("Enter")  # the shortcuts help, opened and closed by keyboard
    help_box = page.locator("#shortcuts-help")
    expect(help_box).to_be_visible()
    expect(help_box).to_contain_text("Shift + Ctrl/Cmd + Enter")
    page.keyboard.press("Escape")
    expect(help_box).to_be_hidden()
    expect(page.locator("#shortcuts-btn")).to_be_focused()


def test_my_input_is_a_tab_of_the_results_with_several_inputs(visits: Visits, server: Server) -> None:
    v = visits.new(viewport=PHONE)
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    open_code(page)
    replace_code(page, "def add(a, b):\n    return a + b\n")
    tab = page.get_by_role("tab", name="My input")
    tab.focus()
    page.keyboard.press("Enter")
    box = page.get_by_label("Arguments for add")
    expect(box).to_be_visible()
    page.get_by_role("button", name="Add an input").click()
    expect(page.get_by_role("tab", name="Input 2")).to_have_attribute("aria-selected", "true")
    second = '{"a": {"tensor": [5.0]}, "b": {"tensor": [1.0]}}'
    box.fill(second)
    page.get_by_role("tab", name="Input 1").click()
    expect(box).not_to_have_value(second)  # the first input is back
    page.get_by_role("tab", name="Input 2").click()
    expect(box).to_have_value(second)
    page.evaluate(WATCH_ANNOUNCER)
    box.press("Control+Enter")
    wait_verdict(page, "Your input:")
    expect(page.get_by_role("tab", name="Test results")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#results-summary")).to_be_focused()
    assert in_viewport(page, "#results-summary")
    assert len(announced(page)) == 1
    page.get_by_role("button", name="Edit my input").click()
    expect(box).to_be_focused()
    expect(box).to_have_value(second)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_state_of_the_problem_page_is_axe_clean(
    visits: Visits, server: Server, viewport: dict[str, int]
) -> None:
    found: dict[str, list[str]] = {}
    v = visits.new(viewport=viewport)
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    axe_clean(page, "before run", found)
    page.get_by_role("tab", name="Learn").click()
    axe_clean(page, "learn tab", found)
    page.get_by_role("tab", name="Problem").click()
    open_code(page)
    page.get_by_role("button", name="Keyboard shortcuts").click()
    axe_clean(page, "shortcuts help", found)
    # long enough to scroll the editor, with an error on a line to mark
    long_code = "import time\n" + "".join(f"# line {i}: a comment\n" for i in range(60))
    replace_code(page, long_code + "def add(a, b):\n    time.sleep(2)\n    return a.nope\n")
    page.get_by_role("button", name="Run").click()
    expect(page.locator("#results-progress [data-step='running']")).to_have_class("current", timeout=15_000)
    axe_clean(page, "running", found)
    wait_verdict(page, "Runtime Error")
    expect(page.locator(".cm-error-line")).to_have_count(1)
    axe_clean(page, "failed, error line marked", found)
    replace_code(page, bank_file(SLUG))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Accepted")
    axe_clean(page, "accepted", found)
    page.get_by_role("tab", name="My input").click()
    axe_clean(page, "custom input", found)
    page.get_by_role("button", name="Add an input").click()
    page.get_by_role("button", name="Try my input").click()
    wait_verdict(page, "Your input:")
    axe_clean(page, "custom input result", found)
    assert not found, "\n".join(f"{state}: {p}" for state, items in found.items() for p in items)


def test_the_problem_list_and_the_front_page_fit_a_phone(visits: Visits, server: Server) -> None:
    v = visits.new(viewport=PHONE)
    page = v.page
    page.goto("/")
    expect(page.locator("#start-here-link")).to_be_visible()  # a newcomer starts on the first track
    for path in ("/", "/problems", "/problems?difficulty=hard"):
        page.goto(path)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{path} is {width} px wide on a {PHONE['width']} px screen"
    v.login(server.new_account(), "/problems")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"/problems (logged in) is {width} px wide"


def test_counters_and_the_lesson_follow_an_attempt_without_a_reload(visits: Visits, server: Server) -> None:
    v = visits.new(viewport=DESKTOP)
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    lesson = page.locator("#learn-solution")
    expect(lesson).not_to_have_attribute("open", "")  # folded before any attempt
    rate = page.locator("#acceptance .acceptance")
    before = rate.get_attribute("title")  # "N of M judged submissions accepted" (or none yet)
    replace_code(page, bank_file(SLUG))
    page.keyboard.press("Control+Shift+Enter")
    wait_verdict(page, "Accepted")
    expect(rate).not_to_have_attribute("title", before or "")  # the new judged submit counts
    expect(rate).to_contain_text("%")
    expect(lesson).to_have_attribute("open", "")


def test_the_page_is_usable_before_the_editor_bundle_and_keeps_what_was_typed(
    visits: Visits, server: Server
) -> None:
    """The page's own textarea works at once; CodeMirror takes over with the text, caret and focus."""
    v = visits.new(viewport=DESKTOP)
    page = v.page
    v.login(server.new_account(), "/problems")
    held: list[Any] = []
    page.route("**/static/vendor/editor.*", lambda route: held.append(route))  # the bundle is slow today
    page.goto(f"/problems/{SLUG}", wait_until="domcontentloaded")  # not held up by the bundle
    box = page.get_by_role("textbox", name="solution.py source code")
    expect(box).to_be_visible()
    expect(page.locator(".cm-content")).to_have_count(0)
    box.fill("def add(a, b):\n    return a + b")
    box.press("End")
    page.keyboard.type("  # typed before CodeMirror")
    assert held, "the page did not ask for the editor bundle"
    held[0].continue_()
    content = page.locator(".cm-content")
    expect(content).to_be_visible()
    expect(content).to_contain_text("return a + b  # typed before CodeMirror")
    expect(content).to_be_focused()
    expect(page.locator("#code")).to_be_hidden()
    page.keyboard.press("Control+Enter")  # and Run works from the upgraded editor
    wait_verdict(page, "Matches the reference")
