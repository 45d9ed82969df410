"""The owner hears of every change to their second factor by mail (a real SMTP server on
127.0.0.1): turned on, new recovery codes, turned off, reset by an admin; a refused change sends
nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.models import User
from app.accounts.service import sign_up
from app.kit.db import Database
from app.kit.runner import JudgeRunner
from app.main import create_app
from tests.app.accounts.two_factor_http import RECOVERY, Visitor, enrol
from tests.app.cli.conftest import serve_in_thread
from tests.app.conftest import PASSWORD, settings_for
from tests.local_smtp import LocalSmtp


@pytest.fixture
def smtp() -> Iterator[LocalSmtp]:
    with LocalSmtp() as server:
        yield server


@pytest.fixture
def mail_server(seeded: Database, runner: JudgeRunner, db: Database, smtp: LocalSmtp) -> Iterator[str]:
    settings = settings_for(seeded.url).model_copy(
        update={"smtp_url": smtp.url, "mail_from": "drill@example.org"}
    )
    application = create_app(settings, database=seeded, runner=runner)
    with TestClient(application):
        url, server, thread = serve_in_thread(application)
        yield url
        server.should_exit = True
        thread.join(timeout=10)


def account(db: Database, role: str = "student") -> str:
    email = f"{role}-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role=role)
    return email


def test_every_change_is_mailed_to_the_owner(mail_server: str, db: Database, smtp: LocalSmtp) -> None:
    email = account(db)
    with Visitor(mail_server) as v:
        v.password_step(email)
        v.post_form("/account/two-factor/setup", {}, page="/account/two-factor")
        refused = v.post_form(
            "/account/two-factor/enable", {"password": PASSWORD, "code": "x"}, page="/account/two-factor"
        )
        assert refused.status_code == 400
        keys = enrol(v)
        [on] = smtp.wait_for(email)
        assert on["Subject"] == "Two-factor sign-in on your Torchdrill account"
        assert "turned on" in on.get_content() and "If this was not you" in on.get_content()
        fresh = v.post_form(
            "/account/two-factor/recovery-codes", {"regen_password": PASSWORD}, page="/account/two-factor"
        )
        assert "New recovery codes were made" in smtp.wait_for(email, count=2)[1].get_content()
        code = RECOVERY.findall(fresh.text)[0]
        off = {"off_password": PASSWORD, "off_code": code}
        assert v.post_form("/account/two-factor/disable", off, page="/account/two-factor").status_code == 303
        assert "turned off" in smtp.wait_for(email, count=3)[2].get_content()
        assert keys.recovery_codes[0] not in "".join(m.get_content() for m in smtp.to(email))

    with Visitor(mail_server) as v:
        v.password_step(email)
        enrol(v)
    smtp.wait_for(email, count=4)
    with db.transaction() as session:
        user_id = session.scalars(select(User.id).where(User.email == email)).one()
    with Visitor(mail_server) as admin:
        admin.password_step(account(db, "admin"))
        reset = admin.post_form(f"/admin/users/{user_id}/two-factor/reset", {}, page="/admin")
        assert reset.status_code == 303
    assert "administrator reset" in smtp.wait_for(email, count=5)[4].get_content()
