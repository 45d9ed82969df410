"""Run with my input: both outputs and the diff for valid input; a clear error, text kept, for bad input."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Visits
from tests.browser.editor import replace_code, wait_verdict

pytestmark = pytest.mark.browser

SLUG = "add-tensors"  # the fixture bank's problem with [example_input]


def test_custom_input_shows_both_outputs_and_keeps_bad_input(visits: Visits, server: Server) -> None:
    v = visits.new()
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    box = page.get_by_label("Arguments for add")
    expect(box).to_be_hidden()  # "My input" is the results panel's second tab
    page.get_by_role("tab", name="My input").click()
    expect(box).to_be_visible()
    assert json.loads(box.input_value()) == {  # prefilled with the example's arguments
        "a": {"tensor": [1.0, 2.0], "dtype": "float32"},
        "b": {"tensor": [3.0, 4.0], "dtype": "float32"},
    }
    replace_code(page, "def add(a, b):\n    return a * b\n")

    box.fill("{'a': {'tensor': [2.0, 3.0]}, 'b': {'tensor': [4.0, 5.0]}}")  # Python literals
    page.get_by_role("button", name="Try my input").click()
    wait_verdict(page, "Your input: Differs from the reference")
    # add-tensors' rule is checked only by its own case: the result says Run and Submit check it
    expect(page.locator("#results-message")).to_contain_text(
        "How-rules (inputs-not-modified) are checked by Run and Submit."
    )
    case = page.locator("#results-cases .case").first
    expect(case.locator(".compare-expected .compare-label")).to_have_text("Reference output")
    expect(case.locator(".compare-expected pre")).to_contain_text("[6.0, 8.0]")
    expect(case.locator(".compare-actual .compare-label")).to_have_text("Your output")
    expect(case.locator(".compare-actual pre")).to_contain_text("[8.0, 15.0]")
    expect(case.locator(".compare-actual mark.diff").first).to_be_visible()
    expect(page.locator("#history-list li").first).to_contain_text("custom")
    v.screenshot("diff")
    page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
    v.screenshot("diff-dark")
    page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
    page.reload()  # the last result comes back, labelled as a run with your input
    wait_verdict(page, "Last run with your input: Differs from the reference")
    expect(page.locator("#results-cases .compare-expected .compare-label")).to_have_text("Reference output")
    expect(page.locator(".submission-link")).to_be_visible()

    bad = '{"a": {"tensor": [[1.0], [2.0, 3.0]]}, "b": 1}'
    page.get_by_role("tab", name="My input").click()
    box.fill(bad)
    page.get_by_role("button", name="Try my input").click()
    error = page.locator("#custom-input-error")
    expect(error).to_contain_text("input.a.tensor[1]")
    expect(error).to_contain_text("same shape")
    expect(box).to_have_value(bad)  # nothing typed is lost
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_be_focused()  # a refused input keeps the learner on it, in the My input tab
    v.screenshot("error")

    page.get_by_role("button", name="Back to the example").click()
    expect(box).not_to_have_value(bad)

    assert json.loads(box.input_value())["b"] == {"tensor": [3.0, 4.0], "dtype": "float32"}

    box.fill("a = torch.tensor([2., 3.])\nb = torch.ones(2)")  # the statement's own notation, read as data
    page.get_by_role("button", name="Try my input").click()
    wait_verdict(page, "Your input: Differs from the reference")
    expect(page.locator("#results-cases .compare-expected pre")).to_contain_text("[3.0, 4.0]")
