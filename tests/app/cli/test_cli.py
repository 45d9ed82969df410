"""The ``torchdrill`` command line: operator commands on the database and the API client."""

from __future__ import annotations

import json
import stat
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.accounts import premium, service
from app.cli.main import app as cli
from app.kit.db import Database, utcnow
from tests.app.api_v1.conftest import create_account
from tests.app.conftest import PASSWORD


@pytest.fixture
def run(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "cfg" / "config.json"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args, **kw: runner.invoke(cli, [str(a) for a in args], **kw)


def email() -> str:
    return f"cli-{uuid.uuid4().hex[:8]}@example.com"


def test_users_create_with_role_and_premium(run, db) -> None:
    address = email()
    result = run(
        "users", "create", address, "--password", PASSWORD, "--role", "instructor", "--premium-days", 10
    )
    assert result.exit_code == 0, result.output
    assert "created" in result.output and "Premium until" in result.output
    with db.transaction() as session:
        user = service.get_user_by_email(session, address)
        assert user.role == "instructor" and premium.premium_until(user, utcnow()) is not None


def test_users_create_validates_input(run) -> None:
    address = email()
    assert run("users", "create", address, "--password", PASSWORD).exit_code == 0
    cases = {
        ("users", "create", address, "--password", PASSWORD): "already exists",
        ("users", "create", "not-an-email", "--password", PASSWORD): "valid email",
        ("users", "create", email(), "--password", "short"): "at least 8",
        ("users", "create", email(), "--password", PASSWORD, "--role", "king"): "--role must be one of",
        ("users", "create", email(), "--password", PASSWORD, "--premium-days", 0): "--premium-days",
        ("users", "grant-premium", "nobody@example.com", "--days", 3): "no user",
        ("users", "grant-premium", address, "--days", 0): "between 1 and",
        ("users", "revoke-premium", "nobody@example.com"): "no user",
        ("tokens", "create", "nobody@example.com"): "no user",
    }
    for args, message in cases.items():
        result = run(*args)
        assert result.exit_code != 0, args
        assert message in result.output, (args, result.output)
    assert run("users", "create", email()).exit_code != 0  # --password is required


def test_grant_and_revoke_premium(run, db) -> None:
    address = email()
    run("users", "create", address, "--password", PASSWORD)
    granted = run("users", "grant-premium", address, "--days", 5)
    assert granted.exit_code == 0 and "Premium until" in granted.output
    with db.transaction() as session:
        assert premium.is_premium(service.get_user_by_email(session, address), utcnow())
    revoked = run("users", "revoke-premium", address)
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    with db.transaction() as session:
        assert not premium.is_premium(service.get_user_by_email(session, address), utcnow())


def test_cli_reports_an_unusable_database(run, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", f"sqlite:///{tmp_path / 'empty.db'}")
    result = run("users", "create", email(), "--password", PASSWORD)
    assert result.exit_code == 1 and "alembic upgrade head" in result.output


def test_token_from_cli_works_against_the_api(run, live_server) -> None:
    address = email()
    run("users", "create", address, "--password", PASSWORD)
    created = run("tokens", "create", address)
    assert created.exit_code == 0
    token = created.output.strip()
    login = run("login", "--server", live_server, "--token", token)
    assert login.exit_code == 0 and address in login.output


def test_login_pull_submit(run, live_server, db, tmp_path, code_of) -> None:
    address, _token = create_account(db)
    wrong = run("login", "--server", live_server, "--email", address, "--password", "not it")
    assert wrong.exit_code == 2 and "incorrect" in wrong.output
    result = run("login", "--server", live_server, "--email", address, "--password", PASSWORD)
    assert result.exit_code == 0, result.output
    config = tmp_path / "cfg" / "config.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert json.loads(config.read_text())["server"] == live_server

    listing = run("problems")
    assert listing.exit_code == 0 and "add-tensors" in listing.output and "🔒" in listing.output
    paths = run("tracks")
    assert (
        paths.exit_code == 0
        and "10. test-basics" in paths.output
        and "0/2 solved  next: add-tensors" in paths.output
    )
    one = run("tracks", "test-basics")
    assert one.exit_code == 0 and one.output.index("add-tensors") < one.output.index("scale-rows")
    assert "🔒" in one.output and run("tracks", "nope").exit_code != 0

    pulled = run("pull", "add-tensors")
    assert pulled.exit_code == 0 and (tmp_path / "solution.py").read_text() == code_of(
        "add-tensors", "starter.py"
    )
    assert run("pull", "add-tensors").exit_code != 0  # no silent overwrite
    locked = run("pull", "scale-rows", "-o", "other.py")
    assert locked.exit_code == 1 and "Premium" in locked.output and not (tmp_path / "other.py").exists()

    (tmp_path / "good.py").write_text(code_of("add-tensors"))
    (tmp_path / "bad.py").write_text(code_of("add-tensors", "mutants/subtracts.py"))
    ok = run("submit", "add-tensors", "good.py")
    assert ok.exit_code == 0, ok.output
    assert "ACCEPTED" in ok.output and "3/3" in ok.output and "example" in ok.output
    bad = run("submit", "add-tensors", "bad.py", "--run")
    assert bad.exit_code == 1 and "DIFFERS FROM THE REFERENCE" in bad.output and "failed" in bad.output
    premium = run("submit", "scale-rows", "good.py")
    assert premium.exit_code == 2 and "premium_required" in premium.output
    assert run("submit", "add-tensors", "missing.py").exit_code == 2


def test_client_commands_need_login(run, tmp_path) -> None:
    (tmp_path / "x.py").write_text("x = 1\n")
    for args in (("problems",), ("tracks",), ("pull", "add-tensors"), ("submit", "add-tensors", "x.py")):
        result = run(*args)
        assert result.exit_code == 2 and "torchdrill login" in result.output, args
    assert run("login", "--server", "ftp://x", "--token", "t").exit_code == 2


def test_run_with_my_input_prints_both_outputs_and_the_diff(run, live_server, db, tmp_path) -> None:
    address, _token = create_account(db)
    assert run("login", "--server", live_server, "--email", address, "--password", PASSWORD).exit_code == 0
    (tmp_path / "wrong.py").write_text("def add(a, b):\n    return a * b\n")
    (tmp_path / "input.py").write_text("{'a': {'tensor': [2.0, 3.0]}, 'b': {'tensor': [4.0, 5.0]}}\n")
    result = run("run", "add-tensors", "wrong.py", "--input", "input.py")
    assert result.exit_code == 1, result.output
    assert "reference output:" in result.output and "[6.0, 8.0]" in result.output  # 2+4, 3+5
    assert "your output:" in result.output and "[8.0, 15.0]" in result.output  # 2*4, 3*5
    assert "diff (reference -> yours):" in result.output

    (tmp_path / "bad.json").write_text('{"a": {"tensor": [[1], [2, 3]]}}')
    bad = run("run", "add-tensors", "wrong.py", "--input", "bad.json")
    assert bad.exit_code == 2 and "same shape" in bad.output
