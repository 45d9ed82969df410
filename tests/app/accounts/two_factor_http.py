"""A visitor of a live server over real HTTP (its own cookies, CSRF from the pages), and the chores
of two-factor sign-in: enrolling through the pages, and codes that the server will still accept."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.accounts import totp
from app.kit.db import utcnow
from tests.app.conftest import PASSWORD

CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
SECRET = re.compile(r'<code id="totp-secret">([A-Z2-7 ]+)</code>')
RECOVERY = re.compile(r"<li><code>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})</code></li>")


class Visitor:
    """One browser: an httpx client with a cookie jar that never follows redirects by itself."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, follow_redirects=False, timeout=30)

    def __enter__(self) -> Visitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.http.get(path, **kwargs)

    def csrf(self, page: str = "/login") -> str:
        found = CSRF.search(self.http.get(page).text)
        assert found, f"{page} has no CSRF token"
        return found.group(1)

    def post_form(self, path: str, data: dict[str, str], page: str | None = None) -> httpx.Response:
        """A form post with the CSRF token of ``page`` (default: the form's own path, or /login)."""
        token = self.csrf(page or "/login")
        return self.http.post(path, data={**data, "csrf_token": token})

    def password_step(self, email: str, password: str = PASSWORD, next_path: str = "") -> httpx.Response:
        return self.post_form("/login", {"email": email, "password": password, "next": next_path})

    def second_step(self, code: str, page: str = "/login/two-factor") -> httpx.Response:
        return self.post_form("/login/two-factor", {"code": code}, page=page)

    def signed_in(self) -> bool:
        """Whether this browser is signed in (the account page answers instead of redirecting)."""
        return self.http.get("/account").status_code == 200


@dataclass
class Enrolled:
    """What a person keeps after turning two-factor sign-in on: the key and the recovery codes."""

    secret: str
    recovery_codes: list[str]
    last_step: int
    used: list[int] = field(default_factory=list)

    def code(self) -> str:
        """A code the server accepts now: of the current step or the next (±1 step is allowed),
        always later than the last one used (a step works once)."""
        current = totp.step_at(utcnow())
        step = max(self.last_step + 1, current)
        assert step <= current + 1, "more than two sign-ins in one 30-second step: the test uses too many"
        self.last_step = step
        return totp.code_at(self.secret, step)

    def peek(self) -> str:
        """The code :meth:`code` would give, for an attempt the server must refuse anyway."""
        current = totp.step_at(utcnow())
        return totp.code_at(self.secret, min(max(self.last_step + 1, current), current + 1))

    def stale_code(self) -> str:
        """The code of the last step used (the server must refuse it: already used)."""
        return totp.code_at(self.secret, self.last_step)


def enrol(v: Visitor, password: str = PASSWORD) -> Enrolled:
    """Turn two-factor sign-in on through the settings page, as a person does."""
    started = v.post_form("/account/two-factor/setup", {}, page="/account/two-factor")
    assert started.status_code == 303, started.text
    page = v.get("/account/two-factor")
    found = SECRET.search(page.text)
    assert found and "<svg" in page.text and "otpauth://totp/" in page.text, page.text
    secret = found.group(1).replace(" ", "")
    step = totp.step_at(utcnow())
    confirmed = v.post_form(
        "/account/two-factor/enable",
        {"password": password, "code": totp.code_at(secret, step)},
        page="/account/two-factor",
    )
    assert confirmed.status_code == 200, confirmed.text
    codes = RECOVERY.findall(confirmed.text)
    assert len(codes) == totp.RECOVERY_CODES, confirmed.text
    return Enrolled(secret, codes, step)
