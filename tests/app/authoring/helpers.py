"""Shared constants and helpers of the authoring tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AUTHORING_FIXTURES = Path(__file__).parent / "fixtures"
WALKTHROUGH = "linear-output-norms"
PASSWORD = "correct horse battery"


def call(browser: Any, method: str, path: str, **kwargs: Any) -> Any:
    """An API call with the session's CSRF token, as the editor's fetch() sends it."""
    headers = {"X-CSRF-Token": browser.csrf("/authoring"), **kwargs.pop("headers", {})}
    return browser.request(method, path, headers=headers, **kwargs)
