"""Clients of a real server (``live_server``) as a visitor and as an API user: httpx over TCP."""

from __future__ import annotations

import re

import httpx

from tests.app.conftest import PASSWORD


def csrf_of(client: httpx.Client, page: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', client.get(page).text)
    assert found, f"{page} has no CSRF token"
    return found.group(1)


def page_client(url: str, email: str) -> httpx.Client:
    """A logged-in browser session: its cookie, and the page's CSRF token on every request."""
    client = httpx.Client(base_url=url, timeout=60)
    answer = client.post(
        "/login", data={"email": email, "password": PASSWORD, "csrf_token": csrf_of(client, "/login")}
    )
    assert answer.status_code == 303, answer.text
    client.headers["X-CSRF-Token"] = csrf_of(client, "/problems")
    return client


def api_client(url: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {token}"})
