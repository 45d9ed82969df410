"""Solutions tests reuse the API accounts and the live server of other folders."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from tests.app.api_v1.conftest import ApiAccount, make_account, member, student
from tests.app.cli.conftest import live_server

__all__ = ["live_server", "make_account", "member", "student"]

CODE = {
    "add-tensors": "def add(a, b):\n    return a + b\n",
    "scale-rows": "def scale_rows(x, s):\n    return x * s[:, None]\n",
    "sum-of-squares": "def sum_of_squares(x):\n    return float((x ** 2).sum().item())\n",
}
WRONG_ADD = "def add(a, b):\n    return a - b\n"


@pytest.fixture(autouse=True)
def fresh_post_limit(app: FastAPI) -> None:
    """Fresh rate limit windows per test: the suite deletes users, and SQLite reuses their ids."""
    app.state.limiters = {}  # app.kit.limits.app_limiter makes each window again


def solve(account: ApiAccount, slug: str, code: str | None = None) -> dict[str, Any]:
    """Submit through /api/v1 and wait for the real judge's verdict."""
    response = account.submit(slug, code or CODE[slug], "submit", wait="true", timeout=60)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def publish(account: ApiAccount, slug: str, submission_id: int, **fields: Any) -> Any:
    body = {"submission_id": submission_id, "title": "Plain addition", "write_up": "Just `a + b`.",
            "tags": ["broadcasting"]} | fields  # fmt: skip
    return account.post(f"/api/v1/problems/{slug}/solutions", json=body)


@pytest.fixture
def published(make_account: Callable[..., ApiAccount]) -> tuple[ApiAccount, dict[str, Any]]:
    """An author who solved add-tensors and published it."""
    author = make_account()
    view = solve(author, "add-tensors")
    assert view["verdict"] == "accepted", view
    created = publish(author, "add-tensors", view["id"])
    assert created.status_code == 201, created.text
    return author, created.json()


@pytest.fixture
def with_settings(app: FastAPI) -> Iterator[Callable[..., None]]:
    """``with_settings(name=value)`` changes the running app's settings for this test only."""
    before = app.state.settings

    def change(**values: object) -> None:
        app.state.settings = before.model_copy(update=values)

    yield change
    app.state.settings = before
