"""Helpers for API v1 tests: accounts with tokens, premium, and a bearer-token client."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app.accounts import premium, service, tokens
from app.accounts.models import LoginFailure
from app.kit.db import Database, utcnow
from tests.app.conftest import PASSWORD


@dataclass
class ApiAccount:
    email: str
    token: str
    client: TestClient

    def _headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} | (extra or {})

    def get(self, url: str, headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        return self.client.get(url, headers=self._headers(headers), **kwargs)

    def post(self, url: str, headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        return self.client.post(url, headers=self._headers(headers), **kwargs)

    def put(self, url: str, headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        return self.client.put(url, headers=self._headers(headers), **kwargs)

    def delete(self, url: str, **kwargs: Any) -> Any:
        return self.client.delete(url, headers={"Authorization": f"Bearer {self.token}"}, **kwargs)

    def submit(self, problem: str, code: str, mode: str = "submit", **params: Any) -> Any:
        return self.post("/api/v1/submissions", json={"problem": problem, "code": code, "mode": mode},
                         params=params)  # fmt: skip


def create_account(db: Database, role: str = "student", premium_days: int | None = None) -> tuple[str, str]:
    email = f"{role}-{uuid.uuid4().hex[:10]}@example.com"
    with db.transaction() as session:
        user = service.sign_up(session, email, PASSWORD, role=role)
        if premium_days is not None:
            premium.grant_premium(session, user, premium_days, utcnow())
        _token, plain = tokens.create_token(session, user, "test", utcnow())
    return email, plain


@pytest.fixture
def make_account(app: FastAPI, db: Database) -> Iterator[Callable[..., ApiAccount]]:
    def make(role: str = "student", premium_days: int | None = None) -> ApiAccount:
        email, token = create_account(db, role, premium_days)
        return ApiAccount(email, token, TestClient(app, follow_redirects=False))

    yield make
    with db.transaction() as session:
        session.execute(delete(LoginFailure))


@pytest.fixture
def student(make_account: Callable[..., ApiAccount]) -> ApiAccount:
    return make_account()


@pytest.fixture
def member(make_account: Callable[..., ApiAccount]) -> ApiAccount:
    """A student with 30 days of Premium."""
    return make_account(premium_days=30)
