"""Moderation tests share the discussion tests' world: the same accounts, live server, fresh
posting and reporting windows and per-test settings (tests/app/discussion/conftest.py)."""

from tests.app.discussion.conftest import (
    fresh_windows,
    live_server,
    make_account,
    member,
    student,
    walkthrough_files,
    with_settings,
    world,
)

__all__ = [
    "fresh_windows",
    "live_server",
    "make_account",
    "member",
    "student",
    "walkthrough_files",
    "with_settings",
    "world",
]
