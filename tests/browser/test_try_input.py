"""A failed case's input, one click away (issue #40, part 5), and the judge's words rendered safely.

A failing public case offers *Try this input* (the statement's example, as custom-input text): it
opens in a new *My input* tab, focused, and runs like any input; a hidden case never offers its own
values. The verdict's message is rendered like the cases' (`code` spans as <code>) and never as
HTML a learner's program wrote. axe finds nothing serious in these states, in either theme.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Visits
from tests.browser.editor import replace_code, wait_verdict
from tests.browser.test_verdict_loop import DESKTOP, PHONE, axe_clean, open_code

pytestmark = pytest.mark.browser

SLUG = "add-tensors"  # the fixture bank's: its example_input is the public case's input
HOSTILE = (
    "def add(a, b):\n"
    '    raise ValueError(\'<img src=x onerror="window.__pwned = 1"><b id="injected">bold</b> '
    "<script>window.__pwned = 2</script> use `torch.add` here')\n"
)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_try_this_input_opens_the_failing_input_in_a_new_tab(
    visits: Visits, server: Server, viewport: dict[str, int]
) -> None:
    found: dict[str, list[str]] = {}
    v = visits.new(viewport=viewport)
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    open_code(page)
    replace_code(page, "def add(a, b):\n    return a - b\n")
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Wrong Answer")
    failed = page.locator("#results-cases li.case-failed")
    public = failed.filter(has_text="example")
    expect(public.get_by_role("button", name="Try this input")).to_have_count(1)
    expect(public.locator(".case-input")).to_contain_text('"a"')
    hidden = failed.filter(has_not_text="example")
    assert hidden.count() > 0
    expect(hidden.get_by_role("button", name="Try this input")).to_have_count(0)  # hidden stays hidden
    expect(hidden.locator(".case-input")).to_have_count(0)
    axe_clean(page, "with Try this input", found)

    public.get_by_role("button", name="Try this input").click()
    box = page.locator("#custom-input-text")
    expect(page.get_by_role("tab", name="My input")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tab", name="Input 2")).to_have_attribute("aria-selected", "true")
    expect(box).to_be_focused()
    offered = box.input_value()
    assert '"a"' in offered and '"b"' in offered
    page.get_by_role("tab", name="Input 1").click()
    expect(box).not_to_have_value(offered)  # what the learner had typed is still there
    page.get_by_role("tab", name="Input 2").click()
    axe_clean(page, "the input tried", found)
    box.press("Control+Enter")
    wait_verdict(page, "Your input:")
    expect(page.locator("#results-summary")).to_contain_text("Differs from the reference")
    assert found == {}
    v.screenshot("tried")


def test_the_verdict_message_is_rendered_never_as_the_learners_html(visits: Visits, server: Server) -> None:
    v = visits.new(viewport=DESKTOP)
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    replace_code(page, HOSTILE)
    page.get_by_role("button", name="Run").click()
    wait_verdict(page, "Runtime Error")
    for where in ("#results-message", "#results-cases .case-message"):
        box = page.locator(where).first
        expect(box).to_contain_text('<img src=x onerror="window.__pwned = 1">')  # shown as text
        expect(box).to_contain_text("<script>")
        expect(box.locator("code")).to_have_text("torch.add")  # the code span, rendered
        expect(box.locator("img, b, script")).to_have_count(0)
    expect(page.locator("#injected")).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None

    page.locator("#results-cases .submission-link").click()  # the same words on the submission page
    message = page.locator("#submission-message")
    expect(message).to_contain_text('<img src=x onerror="window.__pwned = 1">')
    expect(message.locator("code")).to_have_text("torch.add")
    expect(page.locator("#submission-message img, #submission-cases img, #injected")).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None
