"""``torchdrill login`` and ``torchdrill tokens create`` make tokens with a life: an expiry (90
days unless chosen), a name and scopes, checked against a real server on 127.0.0.1."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from app.accounts import service
from app.cli.main import app as cli
from app.kit.db import Database, utcnow
from tests.app.conftest import PASSWORD


@pytest.fixture
def run(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "cfg" / "config.json"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


def account(db: Database, role: str = "student") -> str:
    email = f"cli-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        service.sign_up(session, email, PASSWORD, role=role)
    return email


def saved_token(tmp_path: Path) -> str:
    return str(json.loads((tmp_path / "cfg" / "config.json").read_text())["token"])


def my_tokens(server: str, token: str) -> list[dict[str, object]]:
    answer = httpx.get(f"{server}/api/v1/auth/tokens", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    items: list[dict[str, object]] = answer.json()["items"]
    return items


def days_left(item: dict[str, object]) -> timedelta:
    return datetime.fromisoformat(str(item["expires_at"])) - utcnow()


def test_login_makes_a_token_that_expires_in_90_days_by_default(run, live_server, db, tmp_path) -> None:  # type: ignore[no-untyped-def]
    email = account(db)
    result = run("login", "--server", live_server, "--email", email, "--password", PASSWORD)
    assert result.exit_code == 0, result.output
    assert "read submit" in result.output and "expires" in result.output
    (item,) = my_tokens(live_server, saved_token(tmp_path))
    assert timedelta(days=89) < days_left(item) <= timedelta(days=90)
    assert str(item["name"]).startswith("cli@") and item["scopes"] == ["read", "submit"]


def test_login_chooses_the_expiry_the_scopes_and_the_name(run, live_server, db, tmp_path) -> None:  # type: ignore[no-untyped-def]
    email = account(db, "instructor")
    choices = ("--expires-in-days", "7", "--scope", "read", "--scope", "teach", "--name", "grading box")
    result = run("login", "--server", live_server, "--email", email, "--password", PASSWORD, *choices)
    assert result.exit_code == 0, result.output
    token = saved_token(tmp_path)
    (item,) = my_tokens(live_server, token)
    assert item["name"] == "grading box" and item["scopes"] == ["read", "teach"]
    assert timedelta(days=6) < days_left(item) <= timedelta(days=7)
    # The token can do what its scopes say, and no more.
    submit = httpx.post(f"{live_server}/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                        json={"problem": "add-tensors", "code": "x = 1", "mode": "run"})  # fmt: skip
    assert submit.status_code == 403 and submit.json()["error"] == "insufficient_scope"
    never = run("login", "--server", live_server, "--email", email, "--password", PASSWORD,
                "--expires-in-days", "never")  # fmt: skip
    assert never.exit_code == 0 and "never expires" in never.output


@pytest.mark.parametrize("days", ["0", "3651", "-3", "soon"])
def test_login_refuses_a_bad_expiry_before_asking_the_server(run, days) -> None:  # type: ignore[no-untyped-def]
    # No server listens here: the refusal comes first.
    result = run("login", "--server", "http://127.0.0.1:9", "--email", "a@example.com", "--password", "x",
                 "--expires-in-days", days)  # fmt: skip
    assert result.exit_code == 2 and "--expires-in-days" in result.output


def test_login_reports_a_scope_the_account_cannot_have(run, live_server, db) -> None:  # type: ignore[no-untyped-def]
    email = account(db)
    result = run(
        "login", "--server", live_server, "--email", email, "--password", PASSWORD, "--scope", "teach"
    )
    assert result.exit_code == 2 and "teach scope is for instructors" in result.output


def test_tokens_create_takes_scopes_and_expiry(run, live_server, db) -> None:  # type: ignore[no-untyped-def]
    email = account(db)
    made = run("tokens", "create", email, "--name", "nightly", "--scope", "read", "--expires-in-days", "30")
    assert made.exit_code == 0, made.output
    (item,) = my_tokens(live_server, made.output.strip())
    assert item["name"] == "nightly" and item["scopes"] == ["read"]
    assert timedelta(days=29) < days_left(item) <= timedelta(days=30)
    default = run("tokens", "create", email)
    assert default.exit_code == 0
    items = my_tokens(live_server, default.output.strip())
    newest = items[0]
    assert newest["scopes"] == ["read", "submit"] and timedelta(days=89) < days_left(newest)
    listed = run("tokens", "create", email, "--scope", "submit,read")  # a list in one option too
    assert my_tokens(live_server, listed.output.strip())[0]["scopes"] == ["read", "submit"]
    forever = run("tokens", "create", email, "--expires-in-days", "never")
    assert my_tokens(live_server, forever.output.strip())[0]["expires_at"] is None
    for bad in (["--scope", "teach"], ["--scope", "root"], ["--expires-in-days", "0"]):
        refused = run("tokens", "create", email, *bad)
        assert refused.exit_code == 1 and "error:" in refused.output, bad
