"""An LTI 1.3 platform on 127.0.0.1 (tests/app/lti/platform.py) registered with the tool under test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete

from app.kit.db import Database
from app.lti import platform_keys, platforms, services
from app.lti.models import LtiPlatform
from tests.app.cli.conftest import live_server, serve_in_thread
from tests.app.conftest import Browser, settings_for
from tests.app.lti.platform import CLIENT_ID, DEPLOYMENT_ID, Platform, User, launch_form, login_query

__all__ = ["live_server"]


@pytest.fixture
def platform(app: FastAPI, db: Database, live_server: str) -> Iterator[Platform]:
    # Each test's platform is new (its own keys) but may get a port, hence a JWKS URL, and a
    # platform id that an earlier test's platform had: the tool's caches must not carry over.
    platform_keys.platform_keys.forget()
    services.forget_tokens()
    lms = Platform()
    url, server, thread = serve_in_thread(lms.app())
    lms.url = url
    lms.tool_jwks_url = f"{live_server}/lti/jwks"
    with db.transaction() as session:
        platforms.add(session, settings_for(db.url), registration(lms))
    yield lms
    server.should_exit = True
    thread.join(timeout=10)
    with db.transaction() as session:
        session.execute(delete(LtiPlatform))


def registration(lms: Platform, **changes: str) -> platforms.PlatformInput:
    values = {
        "issuer": lms.issuer,
        "client_id": CLIENT_ID,
        "deployment_id": DEPLOYMENT_ID,
        "auth_url": f"{lms.url}/auth",
        "token_url": f"{lms.url}/token",
        "jwks_url": f"{lms.url}/jwks",
    }
    return platforms.PlatformInput(**(values | changes))


def start_login(browser: Browser, lms: Platform, user: User, **extra: str) -> httpx.Response:
    query = {
        "iss": lms.issuer,
        "login_hint": user.sub,
        "target_link_uri": lms.tool_launch_url,
        "client_id": CLIENT_ID,
        "lti_deployment_id": DEPLOYMENT_ID,
    } | extra
    return browser.get("/lti/login?" + urlencode(query))


def launch(browser: Browser, lms: Platform, user: User, **options: Any) -> httpx.Response:
    """The whole dance: login initiation at the tool, the platform's auth endpoint over HTTP, the
    auto-posted form back to the tool's launch."""
    lms.pending[user.sub] = {"user": user, "options": options}
    started = start_login(browser, lms, user)
    assert started.status_code == 302, started.text
    page = httpx.get(started.headers["location"], timeout=10)
    assert page.status_code == 200, page.text
    action, fields = launch_form(page.text)
    assert action == lms.tool_launch_url
    return browser.post("/lti/launch", data=fields)


def tampered_launch(
    browser: Browser,
    lms: Platform,
    user: User,
    change: Callable[[dict[str, Any]], Any] | None = None,
    **sign: Any,
) -> httpx.Response:
    """A launch whose id_token the test builds itself (then changes), for the refusals."""
    started = start_login(browser, lms, user)
    assert started.status_code == 302, started.text
    query = login_query(started.headers["location"])
    body = lms.claims_for(user, query["nonce"])
    if change is not None:
        change(body)
    return browser.post("/lti/launch", data={"id_token": lms.sign(body, **sign), "state": query["state"]})
