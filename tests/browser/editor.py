"""Small helpers the browser tests share: put code into the CodeMirror editor, wait for a verdict."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]
VERDICT_TIMEOUT_MS = 45_000


def bank_file(slug: str, name: str = "solution.py") -> str:
    for bank in (ROOT / "problems", ROOT / "tests" / "app" / "fixtures" / "bank"):
        if (bank / slug / name).exists():
            return (bank / slug / name).read_text()
    raise FileNotFoundError(f"{slug}/{name}")


def replace_code(page: Page, code: str) -> None:
    """Select everything in the editor and insert ``code`` as one edit (like a paste)."""
    content = page.locator(".cm-content")
    expect(content).to_be_visible()
    content.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def wait_verdict(page: Page, text: str) -> None:
    expect(page.locator("#results-summary")).to_contain_text(text, timeout=VERDICT_TIMEOUT_MS)
