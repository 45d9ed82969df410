"""Log-in costs the same for known and unknown accounts: one argon2 verification on every path.

Timing is not asserted (it would be flaky); the work that makes the time is counted instead, at
argon2's own public seam (``PasswordHasher.verify``), through the page and the token endpoint.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from argon2 import PasswordHasher

from tests.app.conftest import PASSWORD, Browser


@pytest.fixture
def verifications(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every hash argon2 was asked to verify a password against, in order."""
    seen: list[str] = []
    real = PasswordHasher.verify

    def counting(self: PasswordHasher, hash: str | bytes, password: str | bytes) -> Any:
        seen.append(hash if isinstance(hash, str) else hash.decode())
        return real(self, hash, password)

    monkeypatch.setattr(PasswordHasher, "verify", counting)
    return seen


def page_login(b: Browser, email: str, password: str) -> int:
    return int(b.login(email, password).status_code)


def token_login(b: Browser, email: str, password: str) -> int:
    answer = b.client.post("/api/v1/auth/token", data={"username": email, "password": password})
    return int(answer.status_code)


@pytest.mark.parametrize("attempt", [page_login, token_login], ids=["page", "token"])
def test_known_and_unknown_accounts_cost_one_verification_each(
    new_browser: Callable[[], Browser], verifications: list[str], attempt: Callable[[Browser, str, str], int]
) -> None:
    owner = new_browser()
    assert owner.signup().status_code == 303
    email = owner.email
    assert email is not None
    verifications.clear()  # sign-up hashed, it did not verify: nothing to count yet

    known_wrong = attempt(new_browser(), email, "not the password")
    assert known_wrong in (400, 401) and len(verifications) == 1
    account_hash = verifications.pop()

    unknown = attempt(new_browser(), f"nobody-{uuid.uuid4().hex[:8]}@example.com", "not the password")
    assert unknown == known_wrong and len(verifications) == 1  # the same answer, the same work
    stand_in = verifications.pop()
    assert stand_in != account_hash
    # ... against a hash as costly as an account's: the same argon2 parameters.
    assert stand_in.rsplit("$", 2)[0] == account_hash.rsplit("$", 2)[0]

    assert attempt(new_browser(), email, PASSWORD) in (200, 303) and len(verifications) == 1


def test_unknown_accounts_never_log_in(browser: Browser, verifications: list[str]) -> None:
    email = f"nobody-{uuid.uuid4().hex[:8]}@example.com"
    for password in ("", PASSWORD, "x" * 1024):
        answer = browser.login(email, password)
        assert answer.status_code == 400 and "Email or password is incorrect." in answer.text
    assert len(verifications) == 3 and len(set(verifications)) == 1  # one stand-in, made once
