"""Real-HTTP visitors for the ownership tests: each signs in (a session cookie, CSRF from the page)
and holds an API token, against the live uvicorn server on 127.0.0.1."""

from __future__ import annotations

import io
import re
import uuid
import zipfile
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.accounts.service import sign_up
from app.accounts.tokens import create_token
from app.kit.db import Database, utcnow
from tests.app.authoring.helpers import PASSWORD

AUTHORING = "/api/v1/authoring/problems"


@dataclass
class Person:
    """A signed-in visitor: ``page_post`` sends forms with the CSRF field, ``api`` a bearer token."""

    email: str
    user_id: int
    token: str
    web: httpx.Client
    _csrf: str | None = field(default=None, repr=False)

    def csrf(self) -> str:
        if self._csrf is None:
            found = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.web.get("/problems").text)
            assert found, "no CSRF token on the page"
            self._csrf = found.group(1)
        return self._csrf

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return self.web.request(method, path, headers={"Authorization": f"Bearer {self.token}"}, **kwargs)

    def session_api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """The editor's fetch(): the session cookie and the X-CSRF-Token header."""
        return self.web.request(method, path, headers={"X-CSRF-Token": self.csrf()}, **kwargs)

    def page_post(self, path: str, data: dict[str, Any] | None = None, **kwargs: Any) -> httpx.Response:
        return self.web.post(path, data={"csrf_token": self.csrf(), **(data or {})}, **kwargs)


def person(base_url: str, db: Database, role: str = "student") -> Person:
    email = f"{role}-{uuid.uuid4().hex[:10]}@example.com"
    with db.transaction() as session:
        user = sign_up(session, email, PASSWORD, role=role)
        _row, token = create_token(session, user, "ownership tests", utcnow())
        user_id = user.id
    web = httpx.Client(base_url=base_url, follow_redirects=False, timeout=120)
    page = web.get("/login").text
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page)
    assert found
    login = web.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": found.group(1)})
    assert login.status_code == 303, login.text
    return Person(email, user_id, token, web)


def anonymous(base_url: str) -> httpx.Client:
    return httpx.Client(base_url=base_url, follow_redirects=False, timeout=60)


def zipped(slug: str | None, files: dict[str, str]) -> bytes:
    """A problem zip, with a top-level ``slug/`` folder (or none)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(f"{slug}/{name}" if slug else name, text)
    return buffer.getvalue()
