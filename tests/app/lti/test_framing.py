"""Launches inside an LMS iframe: only the registered platform may frame the tool, and only where
its launch goes; without the state cookie (a third-party iframe) the state is checked through the
platform's client-side storage — and every way around that check is refused, nothing created."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from app.kit.db import Database
from app.kit.headers import FRAME_ANCESTORS, SecurityHeadersMiddleware
from app.kit.links import absolute_url
from app.lti import claims, framing
from app.lti.models import LtiLogin, LtiUserLink
from tests.app.conftest import Browser
from tests.app.lti.conftest import launch, start_login, tampered_launch
from tests.app.lti.platform import INSTRUCTOR, Platform, User, launch_form

TEACHER = User("t-frame", "Fran Framed", "fran@uni.example", INSTRUCTOR)
CHECK = "X-LTI-Storage-Check"


def _ours(app: Any) -> str:
    origin = framing.origin_of(absolute_url(app.state.settings, "/"))
    assert origin
    return origin


def _ancestors(response: httpx.Response) -> str:
    csp = response.headers["content-security-policy"]
    (part,) = [p.strip() for p in csp.split(";") if p.strip().startswith("frame-ancestors")]
    return part


def _storage_login(browser: Browser, lms: Platform, user: User) -> tuple[dict[str, str], httpx.Response]:
    """The login with the platform's storage offered, then its authorization answer's form."""
    lms.storage_target = "_parent"
    lms.pending[user.sub] = {"user": user, "options": {}}
    page = start_login(browser, lms, user, lti_storage_target="_parent")
    assert page.status_code == 200, page.text
    found = re.search(r'data-next="([^"]+)"', page.text)
    assert found and 'data-mode="put"' in page.text
    auth = httpx.get(html.unescape(found.group(1)), timeout=10)
    assert auth.status_code == 200, auth.text
    _action, fields = launch_form(auth.text)
    return fields, page


def _links(db: Database) -> int:
    with db.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(LtiUserLink)) or 0)


def test_the_login_and_launch_may_be_framed_by_the_platform_only(
    app: Any, platform: Platform, new_browser: Callable[[], Browser]
) -> None:
    browser = new_browser()
    started = start_login(browser, platform, TEACHER)
    assert started.status_code == 302
    assert _ancestors(started) == f"frame-ancestors {platform.url}"
    assert "x-frame-options" not in started.headers
    landed = launch(browser, platform, TEACHER)
    assert landed.status_code == 303, landed.text
    assert _ancestors(landed) == f"frame-ancestors {platform.url}"
    course = browser.get(landed.headers["location"])  # every page of the launched session
    assert course.status_code == 200
    assert _ancestors(course) == f"frame-ancestors {platform.url}" and "*" not in _ancestors(course)
    assert "x-frame-options" not in course.headers
    # a session that did not come from an LMS is framed by no one
    other = new_browser().get("/problems")
    assert _ancestors(other) == "frame-ancestors 'none'" and other.headers["x-frame-options"] == "DENY"
    # a login for an unknown platform is not framable either
    refused = new_browser().get("/lti/login?iss=https://evil.example&login_hint=x&target_link_uri=x")
    assert refused.status_code == 400 and _ancestors(refused) == "frame-ancestors 'none'"


def test_a_framed_launch_without_the_cookie_checks_the_state_in_the_platform_storage(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database
) -> None:
    fields, login_page = _storage_login(new_browser(), platform, TEACHER)
    assert fields["lti_storage_target"] == "_parent"
    assert _ancestors(login_page) == f"frame-ancestors {platform.url}"
    assert any(c.startswith("lti1p3-state-") for c in login_page.headers.get_list("set-cookie"))  # fallback
    framed = new_browser()  # the iframe: the login's state cookie did not travel
    first = framed.post("/lti/launch", data=fields)
    assert first.status_code == 200 and 'data-mode="get"' in first.text
    assert _ancestors(first) == f"frame-ancestors {platform.url}"
    assert _links(db) == 0  # nothing created, the state not used
    checked = framed.post(
        "/lti/launch",
        data=fields,
        headers={CHECK: fields["state"], "Origin": _ours(app), "Accept": "application/json"},
    )
    assert checked.status_code == 200, checked.text
    target = checked.json()["location"]
    assert re.fullmatch(r"/courses/\d+", target)
    page = framed.get(target)
    assert page.status_code == 200 and "Deep Learning 101" in page.text  # signed in, in the frame
    assert _ancestors(page) == f"frame-ancestors {platform.url}"
    replay = new_browser().post(
        "/lti/launch", data=fields, headers={CHECK: fields["state"], "Origin": _ours(app)}
    )
    assert replay.status_code == 400 and "already used" in replay.text


@pytest.mark.parametrize(
    ("return_url", "extra"),
    [
        ("http://school.example:8080/courses/1/external_content/success", " http://school.example:8080"),
        ("javascript:alert(1)", ""),
        ("http://*.example/x", ""),
        (None, ""),
    ],
)
def test_the_signed_return_url_names_where_the_lms_shows_the_tool(
    platform: Platform, new_browser: Callable[[], Browser], return_url: str | None, extra: str
) -> None:
    """Canvas frames tools on the school's address (neither its issuer nor its auth URL): the
    launch's signed return_url adds that origin — and nothing that is not an origin."""
    browser = new_browser()

    def present(body: dict[str, Any]) -> None:
        body[claims.LAUNCH_PRESENTATION] = {"document_target": "iframe", "return_url": return_url}

    landed = tampered_launch(browser, platform, TEACHER, change=present)
    assert landed.status_code == 303, landed.text
    course = browser.get(landed.headers["location"])
    assert _ancestors(course) == f"frame-ancestors {platform.url}{extra}"


@pytest.mark.parametrize(
    "attack",
    [
        "no-header",  # a cross-site form can send the fields but no header: only the check page
        "wrong-state",  # the header names another state
        "cross-site-origin",  # a fetch from the LMS's (or anyone's) page
        "no-origin",
        "sec-fetch-cross-site",
        "bad-target",  # a storage target that could break out of the page
        "no-target",  # no storage offered and no cookie: refused as before, header or not
    ],
)
def test_the_storage_check_cannot_be_forged(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database, attack: str
) -> None:
    fields, _page = _storage_login(new_browser(), platform, TEACHER)
    headers = {CHECK: fields["state"], "Origin": _ours(app), "Accept": "application/json"}
    if attack == "no-header":
        del headers[CHECK]
    elif attack == "wrong-state":
        headers[CHECK] = fields["state"][::-1]
    elif attack == "cross-site-origin":
        headers["Origin"] = platform.url
    elif attack == "no-origin":
        del headers["Origin"]
    elif attack == "sec-fetch-cross-site":
        headers["Sec-Fetch-Site"] = "cross-site"
    elif attack == "bad-target":
        fields["lti_storage_target"] = '"><script>alert(1)</script>'
    elif attack == "no-target":
        del fields["lti_storage_target"]
    answer = new_browser().post("/lti/launch", data=fields, headers=headers)
    if answer.status_code == 200:  # only ever the check page again, never a session
        assert 'data-mode="get"' in answer.text and "location" not in answer.text[:20]
    else:
        assert answer.status_code == 400, answer.text
        assert "login state is missing or does not belong to this browser" in answer.text
    assert "<script>alert(1)</script>" not in answer.text
    assert _links(db) == 0
    with db.transaction() as session:  # the state is still unused: the real check could go on
        assert session.scalars(select(LtiLogin.used_at)).one() is None


def _framed_app(origins: list[str], secure: bool) -> TestClient:
    def page(request: Request) -> PlainTextResponse:
        request.session[FRAME_ANCESTORS] = origins
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[Route("/", page)],
        middleware=[
            Middleware(SecurityHeadersMiddleware),
            Middleware(SessionMiddleware, secret_key="k" * 32, same_site="lax", https_only=secure),
        ],
    )
    return TestClient(app, base_url="https://tool.example" if secure else "http://127.0.0.1")


def test_a_framed_session_cookie_is_samesite_none_and_secure_over_https_only() -> None:
    https = _framed_app(["https://lms.example"], secure=True).get("/")
    cookie = https.headers["set-cookie"].lower()
    assert "samesite=none" in cookie and "secure" in cookie
    assert _ancestors(https) == "frame-ancestors https://lms.example"
    plain = _framed_app(["http://127.0.0.1:8001"], secure=False).get("/")
    assert "samesite=lax" in plain.headers["set-cookie"].lower()  # None without Secure is dropped


@pytest.mark.parametrize(
    "origins", [["*"], ["https://lms.example; script-src *"], ["https://lms.example/path"], ["'self'"], [""]]
)
def test_frame_origins_are_only_ever_origins(origins: list[str]) -> None:
    answer = _framed_app(origins, secure=True).get("/")
    assert _ancestors(answer) == "frame-ancestors 'none'" and answer.headers["x-frame-options"] == "DENY"


def test_the_lms_address_registered_with_the_platform_may_frame_the_tool(
    platform: Platform, new_browser: Callable[[], Browser], db: Database
) -> None:
    from app.kit.errors import FormErrors
    from app.lti import platforms
    from tests.app.conftest import settings_for
    from tests.app.lti.conftest import registration

    settings = settings_for(db.url)
    with db.transaction() as session, pytest.raises(FormErrors) as refused:
        platforms.add(session, settings, registration(platform, lms_url="ftp://school.example"))
    assert "lms_url" in refused.value.errors
    with db.transaction() as session:
        platforms.add(session, settings, registration(platform, lms_url="http://127.0.0.1:9/courses"))
    started = start_login(new_browser(), platform, TEACHER)
    assert _ancestors(started) == f"frame-ancestors {platform.url} http://127.0.0.1:9"
