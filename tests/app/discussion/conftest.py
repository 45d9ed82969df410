"""Discussion tests reuse the API accounts and the live-server world of other folders; each test
gets fresh posting and reporting windows (the suite deletes users, and SQLite reuses their ids)."""

from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI

from tests.app.api_v1.conftest import make_account, member, student
from tests.app.authoring.conftest import walkthrough_files
from tests.app.authoring.world import world
from tests.app.cli.conftest import live_server

__all__ = ["live_server", "make_account", "member", "student", "walkthrough_files", "world"]


@pytest.fixture(autouse=True)
def fresh_windows(app: FastAPI) -> None:
    app.state.limiters = {}  # app.kit.limits.app_limiter makes each window again


@pytest.fixture
def with_settings(app: FastAPI) -> Iterator[Callable[..., None]]:
    """``with_settings(name=value)`` changes the running app's settings for this test only."""
    before = app.state.settings

    def change(**values: object) -> None:
        app.state.settings = before.model_copy(update=values)

    yield change
    app.state.settings = before
