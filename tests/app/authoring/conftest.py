"""Fixtures for authoring: a logged-in instructor, an admin author, and the walkthrough problem's files."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from app.accounts.service import sign_up
from app.kit.db import Database
from runner.format.problem import read_problem_files
from tests.app.authoring.helpers import AUTHORING_FIXTURES, PASSWORD, WALKTHROUGH


@pytest.fixture
def instructor(new_browser: Callable[[], Any], db: Database) -> Any:
    email = f"instructor-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="instructor")
    b = new_browser()
    assert b.login(email, PASSWORD).status_code == 303
    return b


@pytest.fixture
def author(new_browser: Callable[[], Any], db: Database) -> Any:
    """An admin: authors site-wide problems (the public bank), which every learner sees once published."""
    email = f"author-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="admin")
    b = new_browser()
    assert b.login(email, PASSWORD).status_code == 303
    return b


@pytest.fixture
def walkthrough_files() -> dict[str, str]:
    return read_problem_files(AUTHORING_FIXTURES / WALKTHROUGH)
