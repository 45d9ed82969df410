"""Two-factor sign-in beyond the sign-in page, over real HTTP: the token endpoint's ``otp``, a site
that requires it of staff (pages, session JSON, bearer tokens), admin and operator resets, and
``torchdrill login`` with a code."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from app.accounts import tokens
from app.accounts.models import User
from app.accounts.service import get_user_by_email, sign_up
from app.cli.main import app as cli
from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.main import create_app
from tests.app.accounts.two_factor_http import Enrolled, Visitor, enrol
from tests.app.cli.conftest import live_server, serve_in_thread
from tests.app.conftest import PASSWORD, settings_for

__all__ = ["live_server"]


def new_account(db: Database, role: str = "student") -> str:
    email = f"{role}-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role=role)
    return email


def enrolled_account(url: str, db: Database, role: str = "student") -> tuple[str, Enrolled]:
    email = new_account(db, role)
    with Visitor(url) as v:
        assert v.password_step(email).status_code == 303
        return email, enrol(v)


def token_request(url: str, email: str, password: str = PASSWORD, otp: str | None = None) -> httpx.Response:
    data = {"username": email, "password": password} | ({"otp": otp} if otp is not None else {})
    return httpx.post(f"{url}/api/v1/auth/token", data=data, timeout=30)


def me(url: str, token: str) -> httpx.Response:
    return httpx.get(f"{url}/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)


# --- the token endpoint -------------------------------------------------------------------------


def test_the_token_endpoint_wants_the_code(live_server: str, db: Database) -> None:
    email, keys = enrolled_account(live_server, db)
    for otp in (None, "", "   "):
        missing = token_request(live_server, email, otp=otp)
        assert missing.status_code == 401 and missing.json()["error"] == "otp_required"
        assert "`otp`" in missing.json()["detail"]
    wrong_password = token_request(live_server, email, "not the password", otp=keys.peek())
    assert wrong_password.json()["error"] == "invalid_credentials"  # the password is checked first
    for bad in ("000000" if keys.peek() != "000000" else "999999", keys.stale_code(), "x" * 100):
        refused = token_request(live_server, email, otp=bad)
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_otp", bad
    code = keys.code()
    made = token_request(live_server, email, otp=code)
    assert made.status_code == 200, made.text
    assert me(live_server, made.json()["access_token"]).json()["email"] == email
    replayed = token_request(live_server, email, otp=code)
    assert replayed.status_code == 401 and replayed.json()["error"] == "invalid_otp"
    recovery = keys.recovery_codes[0]
    assert token_request(live_server, email, otp=recovery).status_code == 200
    assert token_request(live_server, email, otp=recovery).json()["error"] == "invalid_otp"
    too_long = token_request(live_server, email, otp="1" * 101)
    assert too_long.status_code == 422


def test_guessing_codes_at_the_token_endpoint_is_stopped(live_server: str, db: Database) -> None:
    email, keys = enrolled_account(live_server, db)
    answers = [token_request(live_server, email, otp=f"{n:06d}x").status_code for n in range(5)]
    assert answers == [401] * 5
    blocked = token_request(live_server, email, otp=keys.peek())
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 60
    with Visitor(live_server) as v:  # the same allowance as the sign-in page
        v.password_step(email)
        assert v.second_step(keys.peek()).status_code == 429


def test_accounts_without_it_are_unchanged(live_server: str, db: Database) -> None:
    email = new_account(db)
    made = token_request(live_server, email)
    assert made.status_code == 200 and me(live_server, made.json()["access_token"]).status_code == 200
    with Visitor(live_server) as v:
        assert v.password_step(email).headers["location"] == "/problems" and v.signed_in()


# --- a site that requires it of staff ------------------------------------------------------------


@pytest.fixture
def strict_server(seeded: Database, runner: JudgeRunner, db: Database) -> Iterator[str]:
    """The app with TORCHDRILL_REQUIRE_2FA_FOR_STAFF=true, served on 127.0.0.1."""
    settings = settings_for(seeded.url).model_copy(update={"require_2fa_for_staff": True})
    application = create_app(settings, database=seeded, runner=runner)
    with TestClient(application):
        url, server, thread = serve_in_thread(application)
        yield url
        server.should_exit = True
        thread.join(timeout=10)


@pytest.mark.parametrize("role", ["instructor", "admin"])
def test_staff_must_enrol_before_using_anything(strict_server: str, db: Database, role: str) -> None:
    email = new_account(db, role)
    with db.transaction() as session:  # a token made before the site began to require it
        _token, old_token = tokens.create_token(session, get_user_by_email(session, email), "old", utcnow())
    with Visitor(strict_server) as v:
        assert v.password_step(email).status_code == 303
        for path in ("/problems", "/account", "/authoring", "/courses", "/admin", "/login"):
            sent = v.get(path)
            assert sent.status_code == 303 and sent.headers["location"] == "/account/two-factor", path
        page = v.get("/account/two-factor")
        assert page.status_code == 200 and "requires instructors and admins" in page.text
        for path in ("/api/problems/add-tensors/draft", "/api/v1/authoring/problems"):
            refused = v.get(path, headers={"Accept": "application/json"})
            assert refused.status_code == 403 and refused.json()["error"] == "two_factor_required", path
        token_page = v.post_form("/account/tokens", {"name": "x"}, page="/account/two-factor")
        assert token_page.status_code == 303 and "td_" not in token_page.text
        for path in ("/api/v1/auth/me", "/api/v1/authoring/problems", "/api/v1/courses"):
            answer = httpx.get(f"{strict_server}{path}", headers={"Authorization": f"Bearer {old_token}"})
            assert answer.status_code == 403 and answer.json()["error"] == "two_factor_required", path
        no_token = token_request(strict_server, email)
        assert no_token.status_code == 403 and no_token.json()["error"] == "two_factor_required"

        keys = enrol(v)
        assert v.get("/problems").status_code == 200 and v.get("/authoring").status_code == 200
        assert me(strict_server, old_token).status_code == 200
        assert token_request(strict_server, email).json()["error"] == "otp_required"
        assert token_request(strict_server, email, otp=keys.code()).status_code == 200


def test_students_are_not_asked_on_a_strict_site(strict_server: str, db: Database) -> None:
    email = new_account(db)
    with Visitor(strict_server) as v:
        assert v.password_step(email).headers["location"] == "/problems"
        assert v.get("/problems").status_code == 200
    assert token_request(strict_server, email).status_code == 200


# --- resets: the admin page and the operator's command -------------------------------------------


def test_an_admin_resets_it_and_the_log_says_who(
    live_server: str, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    email, _keys = enrolled_account(live_server, db)
    with db.transaction() as session:
        user_id = session.scalars(select(User.id).where(User.email == email)).one()
    path = f"/admin/users/{user_id}/two-factor/reset"
    with Visitor(live_server) as student:  # not an admin: refused, nothing changes
        student.password_step(new_account(db))
        assert student.post_form(path, {}, page="/problems").status_code == 403
    admin_email = new_account(db, "admin")
    with Visitor(live_server) as admin, caplog.at_level(logging.WARNING, "torchdrill.accounts"):
        admin.password_step(admin_email)
        listed = admin.get(f"/admin?q={email}")
        assert f'action="{path}"' in listed.text
        assert admin.http.post(path, data={"q": email}).status_code == 403  # no CSRF token
        with Visitor(live_server) as check:
            assert check.password_step(email).headers["location"] == "/login/two-factor"
        done = admin.post_form(path, {"q": email}, page="/admin")
        assert done.status_code == 303
        assert "was reset" in admin.get(done.headers["location"]).text
        again = admin.post_form(path, {"q": email}, page="/admin")
        assert again.status_code == 400 and "does not use two-factor" in again.text
    audit = [r.getMessage() for r in caplog.records if "reset by" in r.getMessage()]
    assert audit and email in audit[0] and admin_email in audit[0]
    with Visitor(live_server) as v:
        assert v.password_step(email).headers["location"] == "/problems" and v.signed_in()


@pytest.fixture
def run(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "config.json"))
    runner = CliRunner()
    return lambda *args, **kw: runner.invoke(cli, [str(a) for a in args], **kw)


def test_the_operator_command_resets_it(live_server: str, db: Database, run: Any) -> None:
    email, _keys = enrolled_account(live_server, db)
    done = run("users", "reset-2fa", email)
    assert done.exit_code == 0 and "was reset" in done.output
    again = run("users", "reset-2fa", email)
    assert again.exit_code == 1 and "does not use two-factor" in again.output
    assert run("users", "reset-2fa", "nobody@example.com").exit_code == 1
    with Visitor(live_server) as v:
        assert v.password_step(email).headers["location"] == "/problems"


def test_torchdrill_login_asks_for_the_code(live_server: str, db: Database, run: Any) -> None:
    email, keys = enrolled_account(live_server, db)
    args = ("login", "--server", live_server, "--email", email, "--password", PASSWORD)
    asked = run(*args, input=keys.code() + "\n")
    assert asked.exit_code == 0, asked.output
    assert "Two-factor code" in asked.output and f"as {email}" in asked.output
    given = run(*args, "--otp", keys.recovery_codes[1])
    assert given.exit_code == 0, given.output
    wrong = run(*args, "--otp", keys.recovery_codes[1])  # used already
    assert wrong.exit_code != 0 and "invalid_otp" in wrong.output
