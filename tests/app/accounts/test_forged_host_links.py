"""A forged Host never reaches a link: every link-making route, attacked through real HTTP.

The server (uvicorn on 127.0.0.1) believes it is https://drill.example.org. The attacker sends
each route a foreign ``Host`` (refused with 400, nothing mailed), and the site's own ``Host`` with
every other header a framework might build links from (X-Forwarded-Host, Forwarded, X-Original-Host,
X-Forwarded-Proto/-Port/-Prefix, an absolute-form request target): the mailed reset link, the
Checkout return addresses and the course invitation link stay on the configured site.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app.accounts.models import PasswordReset
from app.accounts.service import sign_up
from app.billing.stripe_checkout import StripeCheckout
from app.courses.enrolment import create_course
from app.kit.db import Database
from app.kit.runner import JudgeRunner
from app.main import create_app
from tests.app.cli.conftest import serve_in_thread
from tests.app.conftest import PASSWORD, settings_for
from tests.app.rawhttp import raw_request
from tests.local_smtp import LocalSmtp

SITE = "https://drill.example.org"
HOST = "drill.example.org"
LINK = re.compile(r"(\S+)/reset-password\?token=[A-Za-z0-9_-]+")
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
# Headers some frameworks and proxies build links from; none may move a link off the site.
SPOOFS: list[dict[str, str]] = [
    {"X-Forwarded-Host": "evil.example"},
    {"Forwarded": "for=1.2.3.4;host=evil.example;proto=http"},
    {"X-Original-Host": "evil.example", "X-Host": "evil.example", "X-Forwarded-Server": "evil.example"},
    {"X-Forwarded-Proto": "http", "X-Forwarded-Port": "8080", "X-Forwarded-Prefix": "//evil.example"},
    {"X-Forwarded-Scheme": "javascript", "X-Url-Scheme": "http"},
]
HOST_SPELLINGS = ["drill.example.org", "DRILL.Example.ORG", "drill.example.org.", "drill.example.org:8443"]


class Recorder:
    """Stands in for Stripe (no network): remembers the return addresses Checkout is given."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def checkout_url(
        self, _provider: Any, user_id: int, email: str, success_url: str, cancel_url: str
    ) -> str:
        self.calls.append((success_url, cancel_url))
        return "https://checkout.stripe.test/pay"


@pytest.fixture
def checkout(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    monkeypatch.setattr(
        StripeCheckout, "checkout_url", lambda self, *a: recorder.checkout_url(self, *a), raising=True
    )
    return recorder


@pytest.fixture
def smtp() -> Iterator[LocalSmtp]:
    with LocalSmtp() as server:
        yield server


@pytest.fixture
def site(db: Database, runner: JudgeRunner, smtp: LocalSmtp, checkout: Recorder) -> Iterator[str]:
    settings = settings_for(db.url).model_copy(
        update={
            "public_url": SITE,
            "smtp_url": smtp.url,
            "mail_from": "drill@example.org",
            "billing_provider": "stripe",
            "stripe_secret_key": "sk_test_never_used",
            "stripe_webhook_secret": "whsec_" + "w" * 24,
            "stripe_price_id": "price_test",
            "password_reset_per_email_hour": 1000,
            "password_reset_per_client_hour": 1000,
        }
    )
    application: FastAPI = create_app(settings, database=db, runner=runner)
    with TestClient(application):
        url, server, thread = serve_in_thread(application)
        yield url
        server.should_exit = True
        thread.join(timeout=10)
    with db.transaction() as session:
        session.execute(delete(PasswordReset))


def visitor(site: str, host: str = HOST) -> httpx.Client:
    return httpx.Client(base_url=site, headers={"Host": host}, follow_redirects=False, timeout=30)


def csrf(client: httpx.Client, page: str, **headers: str) -> str:
    match = CSRF.search(client.get(page, headers=headers).text)
    assert match, f"{page} has no CSRF token"
    return match.group(1)


def account(db: Database, role: str = "student") -> str:
    email = f"{role}-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role=role)
    return email


def logged_in(site: str, email: str) -> httpx.Client:
    client = visitor(site)
    answer = client.post(
        "/login", data={"email": email, "password": PASSWORD, "csrf_token": csrf(client, "/login")}
    )
    assert answer.status_code == 303
    return client


def test_a_forged_host_gets_400_and_no_mail(site: str, db: Database, smtp: LocalSmtp) -> None:
    victim = account(db)
    attacker = visitor(site)
    token = csrf(attacker, "/forgot-password")
    for host in ("evil.example", "evil.example:443", f"{HOST}.evil.example", f"{HOST}@evil.example"):
        answer = attacker.post(
            "/forgot-password", data={"email": victim, "csrf_token": token}, headers={"Host": host}
        )
        assert answer.status_code == 400 and answer.json()["error"] == "bad_host", host
    # The same request with the site's own Host is answered and mailed, so the refusals above are
    # the Host check's and not some other failure.
    assert attacker.post("/forgot-password", data={"email": victim, "csrf_token": token}).status_code == 200
    [mail] = smtp.wait_for(victim)
    assert smtp.to(victim) == [mail]  # exactly one mail: none for the forged hosts
    match = LINK.search(mail.get_content())
    assert match and match.group(1) == SITE


@pytest.mark.parametrize("spoof", SPOOFS, ids=lambda s: ",".join(s))
def test_the_reset_link_ignores_every_forwarding_header(
    site: str, db: Database, smtp: LocalSmtp, spoof: dict[str, str]
) -> None:
    victim = account(db)
    for count, host in enumerate(HOST_SPELLINGS, start=1):
        attacker = visitor(site, host)
        data = {"email": victim, "csrf_token": csrf(attacker, "/forgot-password")}
        assert attacker.post("/forgot-password", data=data, headers=spoof).status_code == 200
        mails = smtp.wait_for(victim, count=count)
        match = LINK.search(mails[-1].get_content())
        assert match and match.group(1) == SITE, (host, spoof)


def test_an_absolute_form_target_does_not_move_the_link(site: str, db: Database, smtp: LocalSmtp) -> None:
    victim = account(db)
    attacker = visitor(site)
    token = csrf(attacker, "/forgot-password")
    cookie = "; ".join(f"{k}={v}" for k, v in attacker.cookies.items())
    body = f"email={victim.replace('@', '%40')}&csrf_token={token}".encode()
    answer = raw_request(
        site,
        f"POST http://evil.example/forgot-password HTTP/1.1\r\nHost: {HOST}\r\nCookie: {cookie}\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}",
        body,
    )
    assert answer.status == 200
    match = LINK.search(smtp.wait_for(victim)[0].get_content())
    assert match and match.group(1) == SITE


@pytest.mark.parametrize("spoof", [{}, *SPOOFS], ids=lambda s: ",".join(s) or "plain")
def test_checkout_returns_to_the_configured_site(
    site: str, db: Database, checkout: Recorder, spoof: dict[str, str]
) -> None:
    buyer = logged_in(site, account(db))
    for host in HOST_SPELLINGS:
        data = {"next": "/problems/add-tensors", "csrf_token": csrf(buyer, "/problems")}
        answer = buyer.post("/billing/checkout", data=data, headers={"Host": host, **spoof})
        assert answer.status_code == 303 and answer.headers["location"] == "https://checkout.stripe.test/pay"
    assert checkout.calls == [
        (f"{SITE}/problems/add-tensors?purchase=done", f"{SITE}/problems/add-tensors")
    ] * len(HOST_SPELLINGS)
    forged = buyer.post(
        "/billing/checkout", data={"next": "/problems", "csrf_token": csrf(buyer, "/problems")},
        headers={"Host": "evil.example"},
    )  # fmt: skip
    assert forged.status_code == 400 and len(checkout.calls) == len(HOST_SPELLINGS)


@pytest.mark.parametrize("spoof", [{}, *SPOOFS], ids=lambda s: ",".join(s) or "plain")
def test_the_course_invitation_link_is_on_the_configured_site(
    site: str, db: Database, spoof: dict[str, str]
) -> None:
    teacher = account(db, "instructor")
    with db.transaction() as session:
        from app.accounts.repository import get_user_by_email

        owner = get_user_by_email(session, teacher)
        assert owner is not None
        course = create_course(session, owner, "Links")
        course_id, code = course.id, course.join_code
    client = logged_in(site, teacher)
    for host in HOST_SPELLINGS:
        page = client.get(f"/courses/{course_id}", headers={"Host": host, **spoof})
        assert page.status_code == 200
        links = re.findall(r'<code id="join-url">([^<]+)</code>', page.text)
        assert links == [f"{SITE}/courses/join?code={code}"], (host, spoof)
    assert client.get(f"/courses/{course_id}", headers={"Host": "evil.example"}).status_code == 400


def test_without_configuration_development_links_to_the_loopback(
    db: Database, runner: JudgeRunner, smtp: LocalSmtp
) -> None:
    settings = settings_for(db.url).model_copy(
        update={"public_url": None, "port": 8123, "smtp_url": smtp.url, "mail_from": "drill@example.org",
                "password_reset_per_email_hour": 1000}
    )  # fmt: skip
    application = create_app(settings, database=db, runner=runner)
    victim = account(db)
    with TestClient(application):
        url, server, thread = serve_in_thread(application)
        try:
            for count, host in enumerate(
                ("localhost", "LOCALHOST.:9999", "127.0.0.1", "[::1]:8123"), start=1
            ):
                client = visitor(url, host)
                data = {"email": victim, "csrf_token": csrf(client, "/forgot-password")}
                headers = {"X-Forwarded-Host": "evil.example"}
                assert client.post("/forgot-password", data=data, headers=headers).status_code == 200
                match = LINK.search(smtp.wait_for(victim, count=count)[-1].get_content())
                assert match and match.group(1) == "http://127.0.0.1:8123", host
            assert visitor(url, "evil.example").get("/forgot-password").status_code == 400
        finally:
            server.should_exit = True
            thread.join(timeout=10)
    with db.transaction() as session:
        session.execute(delete(PasswordReset))
