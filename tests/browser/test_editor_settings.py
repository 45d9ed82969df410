"""The statement/editor split, editor settings (font size, wrap, vim) and torch completions."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Visits
from tests.browser.editor import replace_code

pytestmark = pytest.mark.browser

SLUG = "add-tensors"


def test_split_and_settings_are_remembered(visits: Visits, server: Server) -> None:
    v = visits.new()
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    splitter = page.get_by_role("separator", name="Resize the statement and the editor")
    expect(splitter).to_have_attribute("aria-valuenow", "50")
    statement = page.locator("#problem-pane")
    before = statement.bounding_box()
    splitter.focus()
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    expect(splitter).to_have_attribute("aria-valuenow", "40")
    box = splitter.bounding_box()
    assert box and before
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 50)  # then drag it further left
    page.mouse.down()
    page.mouse.move(box["x"] - 120, box["y"] + 50, steps=5)
    page.mouse.up()
    dragged = int(splitter.get_attribute("aria-valuenow") or "0")
    assert 25 <= dragged < 40
    after = statement.bounding_box()
    assert after and after["width"] < before["width"] - 50

    page.get_by_text("Editor settings").click()
    page.get_by_label("Font size").select_option("18")
    page.get_by_label("Wrap long lines").check()
    page.get_by_label("Vim keys").check()
    expect(page.locator(".cm-editor")).to_have_css("font-size", "18px")
    expect(page.locator(".cm-content")).to_have_class(r"cm-content cm-lineWrapping")
    v.screenshot("settings")

    page.reload()
    expect(splitter).to_have_attribute("aria-valuenow", str(dragged))
    expect(page.get_by_label("Font size")).to_have_value("18")
    expect(page.get_by_label("Wrap long lines")).to_be_checked()
    expect(page.get_by_label("Vim keys")).to_be_checked()
    expect(page.locator(".cm-editor")).to_have_css("font-size", "18px")
    # Vim is really on: "i" inserts, Escape returns to normal mode, where "x" deletes what was typed.
    content = page.locator(".cm-content")
    content.click()
    page.keyboard.press("Escape")
    page.keyboard.type("iQZ")
    expect(content).to_contain_text("QZ")
    page.keyboard.press("Escape")
    page.keyboard.type("xx")
    expect(content).not_to_contain_text("Q")
    expect(content).not_to_contain_text("iQ")
    expect(content).not_to_contain_text("xx")


def test_completion_offers_torch_names(visits: Visits, server: Server) -> None:
    v = visits.new()
    page = v.page
    v.login(server.new_account(), f"/problems/{SLUG}")
    replace_code(page, "import torch\n\ndef add(a, b):\n    return torch.nn.functional.rel")
    popup = page.locator(".cm-tooltip-autocomplete")
    expect(popup).to_be_visible()
    expect(popup.get_by_text("relu", exact=True)).to_be_visible()
    page.keyboard.type("u")
    page.keyboard.press("Enter")
    expect(page.locator(".cm-content")).to_contain_text("torch.nn.functional.relu")
    page.keyboard.type("(a)\n    return a.unsq")
    expect(popup.get_by_text("unsqueeze", exact=True)).to_be_visible()  # a Tensor method
    v.screenshot("completion")
