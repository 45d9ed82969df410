"""Report tests reuse the API accounts, the live server and the authoring world of other folders."""

import pytest
from fastapi import FastAPI

from tests.app.api_v1.conftest import make_account, member, student
from tests.app.authoring.conftest import walkthrough_files
from tests.app.authoring.world import world
from tests.app.cli.conftest import live_server

__all__ = ["live_server", "make_account", "member", "student", "walkthrough_files", "world"]


@pytest.fixture(autouse=True)
def fresh_report_limit(app: FastAPI) -> None:
    """Fresh rate limit windows per test: the suite deletes users, and SQLite reuses their ids."""
    app.state.limiters = {}  # app.kit.limits.app_limiter makes each window again
