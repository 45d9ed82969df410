"""Password reset by email, against a real SMTP server on 127.0.0.1 (aiosmtpd)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import quote

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete, update

from app.accounts.models import PasswordReset
from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.main import create_app
from tests.app.conftest import PASSWORD, Browser, settings_for
from tests.local_smtp import LocalSmtp

NEW_PASSWORD = "a brand new passphrase"
LINK = re.compile(r"http://testserver/reset-password\?token=([A-Za-z0-9_-]+)")


@pytest.fixture
def smtp() -> Iterator[LocalSmtp]:
    with LocalSmtp() as server:
        yield server


@pytest.fixture
def mail_app(db: Database, runner: JudgeRunner, smtp: LocalSmtp) -> Iterator[FastAPI]:
    settings = settings_for(db.url).model_copy(
        update={"smtp_url": smtp.url, "mail_from": "drill@example.org"}
    )
    application = create_app(settings, database=db, runner=runner)
    with TestClient(application):
        yield application
    with db.transaction() as session:
        session.execute(delete(PasswordReset))


def visitor(app: FastAPI) -> Browser:
    return Browser(app)


def ask(b: Browser, email: str) -> object:
    return b.client.post("/forgot-password", data={"email": email, "csrf_token": b.csrf("/forgot-password")})


def set_password(b: Browser, token: str, password: str) -> object:
    page = f"/reset-password?token={token}"
    return b.client.post(
        "/reset-password", data={"token": token, "password": password, "csrf_token": b.csrf(page)}
    )


def test_reset_end_to_end_ends_every_session_and_link(mail_app: FastAPI, smtp: LocalSmtp) -> None:
    owner = visitor(mail_app)
    assert owner.signup().status_code == 303
    email = owner.email
    assert email is not None
    other_device = visitor(mail_app)
    assert other_device.login(email).status_code == 303
    assert "Log out" in other_device.get("/problems").text

    stranger = visitor(mail_app)
    assert "Forgot password?" in stranger.get("/login").text
    assert ask(stranger, email).status_code == 200  # type: ignore[attr-defined]
    assert ask(stranger, email).status_code == 200  # type: ignore[attr-defined]
    first, second = smtp.wait_for(email, count=2)
    assert first["From"] == "drill@example.org" and "password" in first["Subject"].lower()
    old_token = LINK.search(first.get_content()).group(1)  # type: ignore[union-attr]
    token = LINK.search(second.get_content()).group(1)  # type: ignore[union-attr]

    weak = set_password(stranger, token, "short")
    assert weak.status_code == 400 and "at least 8 characters" in weak.text  # type: ignore[attr-defined]
    done = set_password(stranger, token, NEW_PASSWORD)
    assert done.status_code == 303 and "reset=1" in done.headers["location"]  # type: ignore[attr-defined]

    assert "Log out" not in other_device.get("/problems").text  # the old session ended
    assert "Log out" not in owner.get("/problems").text
    assert visitor(mail_app).login(email, PASSWORD).status_code == 400
    assert visitor(mail_app).login(email, NEW_PASSWORD).status_code == 303
    for used in (token, old_token):  # single use; and a reset closes the other open links
        again = set_password(visitor(mail_app), used, "yet another passphrase")
        assert again.status_code == 400 and "not valid any more" in again.text  # type: ignore[attr-defined]


def test_unknown_email_gets_the_same_answer_and_no_mail(mail_app: FastAPI, smtp: LocalSmtp) -> None:
    known = visitor(mail_app)
    assert known.signup().status_code == 303
    assert known.email is not None
    b = visitor(mail_app)
    unknown = ask(b, "nobody-here@example.com")
    existing = ask(b, known.email)
    assert unknown.status_code == existing.status_code == 200  # type: ignore[attr-defined]

    def body(response: object, email: str) -> str:
        text: str = response.text.split("<main", 1)[1]  # type: ignore[attr-defined]
        return text.replace(email, "X").replace(quote(email), "X")

    assert body(unknown, "nobody-here@example.com") == body(existing, known.email)
    smtp.wait_for(known.email)
    assert smtp.to("nobody-here@example.com") == []


def test_expired_link_is_refused(mail_app: FastAPI, smtp: LocalSmtp, db: Database) -> None:
    owner = visitor(mail_app)
    assert owner.signup().status_code == 303
    assert owner.email is not None
    ask(owner, owner.email)
    [mail] = smtp.wait_for(owner.email)
    token = LINK.search(mail.get_content()).group(1)  # type: ignore[union-attr]
    with db.transaction() as session:
        session.execute(update(PasswordReset).values(expires_at=utcnow() - timedelta(seconds=1)))
    page = visitor(mail_app).get(f"/reset-password?token={token}")
    assert page.status_code == 400 and "not valid any more" in page.text
    assert set_password(visitor(mail_app), token, NEW_PASSWORD).status_code == 400  # type: ignore[attr-defined]


def test_requests_are_rate_limited_per_email(mail_app: FastAPI, smtp: LocalSmtp) -> None:
    owner = visitor(mail_app)
    assert owner.signup().status_code == 303
    assert owner.email is not None
    b = visitor(mail_app)
    for _ in range(5):
        assert ask(b, owner.email).status_code == 200  # type: ignore[attr-defined]
    smtp.wait_for(owner.email, count=3)
    ask(b, "probe@example.com")  # one more request after those: its mail, if any, would have arrived
    assert len(smtp.to(owner.email)) == 3  # at most 3 links an hour, and the same answer beyond
