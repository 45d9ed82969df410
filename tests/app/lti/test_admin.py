"""Registering platforms: the admin page, ``torchdrill lti add-platform|list|remove|sync``, the URL rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, func, select
from typer.testing import CliRunner

from app.cli.main import app as cli
from app.kit.db import Database
from app.kit.errors import FormErrors
from app.kit.settings import Settings
from app.lti import platforms
from app.lti.models import LtiDeployment, LtiPlatform
from tests.app.conftest import Browser, settings_for

GOOD = {
    "issuer": "https://canvas.example.edu",
    "client_id": "10000000000001",
    "deployment_id": "1:abc",
    "auth_url": "https://canvas.example.edu/api/lti/authorize_redirect",
    "token_url": "https://canvas.example.edu/login/oauth2/token",
    "jwks_url": "https://canvas.example.edu/api/lti/security/jwks",
}


@pytest.fixture
def clean(db: Database) -> Any:
    yield db
    with db.transaction() as session:
        session.execute(delete(LtiPlatform))


def _count(db: Database) -> tuple[int, int]:
    with db.transaction() as session:
        return (
            int(session.scalar(select(func.count()).select_from(LtiPlatform)) or 0),
            int(session.scalar(select(func.count()).select_from(LtiDeployment)) or 0),
        )


@pytest.mark.parametrize(
    ("url", "development", "ok"),
    [
        ("https://lms.example.edu/auth", False, True),
        ("http://127.0.0.1:9001/auth", True, True),
        ("http://localhost:9001/auth", True, True),
        ("http://127.0.0.1:9001/auth", False, False),  # production: https only
        ("http://lms.example.edu/auth", True, False),  # development: http only on loopback
        ("http://127.0.0.1.evil.example/auth", True, False),
        ("ftp://lms.example.edu/auth", True, False),
        ("https://user:pw@lms.example.edu/auth", True, False),
        ("lms.example.edu/auth", True, False),
        ("https://lms.example.edu/a b", True, False),
        ("", True, False),
    ],
)
def test_platform_url_rule(url: str, development: bool, ok: bool) -> None:
    settings = (
        Settings(env="development")
        if development
        else Settings(
            env="production",
            secret_key="s" * 40,
            public_url="https://drill.example.org",
            metrics_token="m" * 20,
        )
    )
    assert (platforms.url_problem(url, settings) is None) is ok


def test_admin_page_registers_keeps_values_and_removes(
    admin: Browser, learner: Browser, clean: Database
) -> None:
    assert learner.get("/admin/lti").status_code == 403
    page = admin.get("/admin/lti")
    assert page.status_code == 200
    assert "http://testserver/lti/login" in page.text and "http://testserver/lti/jwks" in page.text
    bad = GOOD | {"token_url": "http://canvas.example.edu/token", "client_id": ""}
    refused = admin.post("/admin/lti", data=bad | {"csrf_token": admin.csrf("/admin/lti")})
    assert refused.status_code == 422
    assert "Use https" in refused.text and "Enter the client id" in refused.text
    assert GOOD["jwks_url"] in refused.text and GOOD["deployment_id"] in refused.text  # values kept
    assert _count(clean) == (0, 0)
    assert admin.post("/admin/lti", data=GOOD).status_code == 403  # no CSRF token
    made = admin.post("/admin/lti", data=GOOD | {"csrf_token": admin.csrf("/admin/lti")})
    assert made.status_code == 303 and _count(clean) == (1, 1)
    again = admin.post(
        "/admin/lti", data=GOOD | {"deployment_id": "2:def", "csrf_token": admin.csrf("/admin/lti")}
    )
    assert again.status_code == 303 and _count(clean) == (1, 2)  # a second deployment of the same platform
    listed = admin.get("/admin/lti").text
    assert "1:abc, 2:def" in listed
    with clean.transaction() as session:
        pid = session.scalars(select(LtiPlatform.id)).one()
    assert learner.post(f"/admin/lti/{pid}/remove", data={"csrf_token": learner.csrf()}).status_code == 403
    gone = admin.post(f"/admin/lti/{pid}/remove", data={"csrf_token": admin.csrf("/admin/lti")})
    assert gone.status_code == 303 and _count(clean) == (0, 0)


def test_cli_add_list_remove_sync(clean: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", clean.url)
    monkeypatch.setenv("TORCHDRILL_SECRET_KEY", settings_for(clean.url).secret_key)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    args = [
        "lti",
        "add-platform",
        "--issuer",
        GOOD["issuer"],
        "--client-id",
        GOOD["client_id"],
        "--deployment-id",
        GOOD["deployment_id"],
        "--auth-url",
        GOOD["auth_url"],
        "--token-url",
        GOOD["token_url"],
        "--jwks-url",
        GOOD["jwks_url"],
    ]
    added = runner.invoke(cli, args)
    assert added.exit_code == 0, added.output
    assert "deployment 1:abc" in added.output and _count(clean) == (1, 1)
    again = runner.invoke(cli, args)  # idempotent
    assert again.exit_code == 0 and _count(clean) == (1, 1)
    bad = runner.invoke(cli, [*args[:-2], "--jwks-url", "http://canvas.example.edu/jwks"])
    assert bad.exit_code == 1 and "jwks_url: Use https" in bad.output and _count(clean) == (1, 1)
    listed = runner.invoke(cli, ["lti", "list"])
    assert listed.exit_code == 0 and GOOD["issuer"] in listed.output and "1:abc" in listed.output
    synced = runner.invoke(cli, ["lti", "sync", "--all"])
    assert synced.exit_code == 0 and "sent 0 score(s)" in synced.output, synced.output
    with clean.transaction() as session:
        pid = session.scalars(select(LtiPlatform.id)).one()
    assert runner.invoke(cli, ["lti", "remove", str(pid + 1000)]).exit_code == 1
    removed = runner.invoke(cli, ["lti", "remove", str(pid)])
    assert removed.exit_code == 0 and _count(clean) == (0, 0)
    assert "no LTI platform" in runner.invoke(cli, ["lti", "list"]).output


def test_service_refuses_bad_fields(clean: Database) -> None:
    with clean.transaction() as session, pytest.raises(FormErrors) as raised:
        platforms.add(
            session, settings_for(clean.url), platforms.PlatformInput(**(GOOD | {"client_id": "a\nb"}))
        )
    assert "client_id" in raised.value.errors
