"""Two-factor sign-in through the pages, over real HTTP (uvicorn on 127.0.0.1), as an attacker
who knows the password tries it: wrong codes, replayed codes, reused recovery codes, the pending
step from another browser or after it expired, skipping the step, and guessing many codes."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from app.accounts import totp
from app.accounts.models import RecoveryCode, TwoFactorAttempt, User
from app.accounts.service import sign_up
from app.kit.db import Database, utcnow
from tests.app.accounts.two_factor_http import RECOVERY, Enrolled, Visitor, enrol
from tests.app.cli.conftest import live_server
from tests.app.conftest import PASSWORD

__all__ = ["live_server"]


def wrong_code(secret: str) -> str:
    """Six digits that are no valid code of ``secret`` around now."""
    now = totp.step_at(utcnow())
    valid = {totp.code_at(secret, s) for s in range(now - 2, now + 3)}
    return next(c for c in (f"{n:06d}" for n in range(100)) if c not in valid)


@pytest.fixture
def account(db: Database) -> str:
    email = f"twofa-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD)
    return email


@pytest.fixture
def enrolled(live_server: str, account: str) -> Iterator[tuple[str, Enrolled]]:
    """An account that turned two-factor sign-in on (then signed out)."""
    with Visitor(live_server) as v:
        assert v.password_step(account).status_code == 303
        keys = enrol(v)
        assert v.post_form("/logout", {}, page="/account").status_code == 303
        assert not v.signed_in()
    yield account, keys


def test_turning_it_on_needs_the_password_and_a_current_code(
    live_server: str, account: str, db: Database
) -> None:
    with Visitor(live_server) as v:
        v.password_step(account)
        off = v.get("/account/two-factor")
        assert off.status_code == 200 and "Set up two-factor sign-in" in off.text
        assert "Two-factor sign-in" in v.get("/account").text  # linked from the account page
        v.post_form("/account/two-factor/setup", {}, page="/account/two-factor")
        page = v.get("/account/two-factor").text
        secret = page.split('<code id="totp-secret">')[1].split("</code>")[0].replace(" ", "")
        good = totp.code_at(secret, totp.step_at(utcnow()))
        for password, code, field in (
            ("not my password", good, "Your password is not correct"),
            (PASSWORD, wrong_code(secret), "That code is not correct"),
            (PASSWORD, totp.code_at(secret, totp.step_at(utcnow()) - 3), "That code is not correct"),
            (PASSWORD, "", "That code is not correct"),
        ):
            refused = v.post_form(
                "/account/two-factor/enable", {"password": password, "code": code}, page="/account/two-factor"
            )
            assert refused.status_code == 400 and field in refused.text
        with db.transaction() as session:
            user = session.scalars(select(User).where(User.email == account)).one()
            assert user.totp_enabled_at is None  # still off
            assert user.totp_secret is not None and secret not in user.totp_secret  # sealed, not plain
        on = v.post_form(
            "/account/two-factor/enable",
            {"password": PASSWORD, "code": totp.code_at(secret, totp.step_at(utcnow()))},
            page="/account/two-factor",
        )
        assert on.status_code == 200 and "will not be shown again" in on.text
        assert "On since" in v.get("/account").text
        again = v.get("/account/two-factor").text
        assert "totp-secret" not in again and not RECOVERY.findall(again)  # shown once only
        with db.transaction() as session:
            user = session.scalars(select(User).where(User.email == account)).one()
            stored = session.scalars(
                select(RecoveryCode.code_hash).where(RecoveryCode.user_id == user.id)
            ).all()
        codes = on.text.split('id="recovery-code-list"')[1]
        assert len(stored) == totp.RECOVERY_CODES
        assert not any(h in codes for h in stored)  # only keyed hashes are stored


def test_sign_in_asks_for_the_code_and_refuses_wrong_and_replayed_ones(
    live_server: str, enrolled: tuple[str, Enrolled]
) -> None:
    email, keys = enrolled
    with Visitor(live_server) as v:
        step = v.password_step(email, next_path="/account")
        assert step.status_code == 303 and step.headers["location"] == "/login/two-factor"
        assert not v.signed_in()  # nobody is signed in between the steps
        assert "Enter the 6-digit code" in v.get("/login/two-factor").text
        for wrong in ("", "12345", "abcdef", wrong_code(keys.secret)):  # 3 tries counted (of 5)
            refused = v.second_step(wrong)
            assert refused.status_code == 400 and not v.signed_in()
        replayed = v.second_step(keys.stale_code())  # the code that confirmed the set-up
        assert replayed.status_code == 400 and "used already" in replayed.text
        code = keys.code()
        done = v.second_step(f" {code[:3]} {code[3:]} ")  # spaces as some apps show it
        assert done.status_code == 303 and done.headers["location"] == "/account"
        assert v.signed_in()
    with Visitor(live_server) as other:  # the same code in another browser: used already
        assert other.password_step(email).status_code == 303
        again = other.second_step(code)
        assert again.status_code == 400 and not other.signed_in()


def test_a_recovery_code_works_once(live_server: str, enrolled: tuple[str, Enrolled]) -> None:
    email, keys = enrolled
    code = keys.recovery_codes[3]
    with Visitor(live_server) as v:
        v.password_step(email)
        done = v.second_step(code.upper())  # however it is typed
        assert done.status_code == 303 and done.headers["location"] == "/account/two-factor"
        page = v.get("/account/two-factor").text
        assert "recovery code" in page and f"{totp.RECOVERY_CODES - 1} recovery codes left" in page
        assert f"{totp.RECOVERY_CODES - 1} unused recovery codes" in page
    for typed in (code, code.replace("-", ""), code.replace("-", " ")):
        with Visitor(live_server) as again:
            again.password_step(email)
            assert again.second_step(typed).status_code == 400 and not again.signed_in()
    with Visitor(live_server) as v:  # another code still works, and a code of another account never
        v.password_step(email)
        assert v.second_step(keys.recovery_codes[4]).status_code == 303


def test_the_pending_step_belongs_to_one_browser_and_expires(
    live_server: str, enrolled: tuple[str, Enrolled], db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    email, keys = enrolled
    with Visitor(live_server) as victim, Visitor(live_server) as attacker:
        victim.password_step(email)
        # Another browser that never passed the password step gets nowhere with a right code.
        assert attacker.get("/login/two-factor").headers["location"] == "/login"
        stolen = attacker.second_step(keys.peek(), page="/login")
        assert stolen.status_code == 400 and "expired or was not started" in stolen.text
        assert not attacker.signed_in()
        # A forged or altered session cookie is no pending step either.
        cookie = victim.http.cookies.get("torchdrill_session")
        assert cookie
        attacker.http.cookies.set("torchdrill_session", cookie[:-4] + "AAAA", domain="127.0.0.1")
        assert attacker.second_step(keys.peek(), page="/login").status_code == 400
        assert not attacker.signed_in()

    with Visitor(live_server) as late:
        late.password_step(email)
        token = late.csrf("/login/two-factor")
        # Six minutes later (the server's clock moved on): the step is gone, even with a right code.
        later = utcnow() + timedelta(minutes=6)
        monkeypatch.setattr("app.accounts.two_factor_pages.utcnow", lambda: later)
        code = totp.code_at(keys.secret, totp.step_at(later))
        expired = late.http.post("/login/two-factor", data={"code": code, "csrf_token": token})
        assert expired.status_code == 400 and "expired" in expired.text and not late.signed_in()


def test_skipping_the_second_step_reaches_nothing(live_server: str, enrolled: tuple[str, Enrolled]) -> None:
    email, _keys = enrolled
    with Visitor(live_server) as v:
        v.password_step(email)
        for path in ("/account", "/account/two-factor", "/courses", "/admin"):
            response = v.get(path)
            assert response.status_code == 303 and response.headers["location"].startswith("/login"), path
        assert v.get("/login").status_code == 200  # the log-in form again, not a signed-in redirect
        for path in ("/api/problems/add-tensors/draft", "/api/v1/auth/me"):
            assert v.get(path).status_code == 401, path
        token = v.post_form("/account/tokens", {"name": "sneaky"}, page="/login")
        assert token.status_code in (303, 401) and "td_" not in token.text


def test_guessing_codes_is_stopped_after_a_few(
    live_server: str, enrolled: tuple[str, Enrolled], db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    email, keys = enrolled
    with Visitor(live_server) as v, caplog.at_level(logging.WARNING, "torchdrill.accounts"):
        v.password_step(email)
        statuses = [v.second_step(f"{n:06d}").status_code for n in range(7)]
        assert statuses[:5] == [400] * 5 and statuses[5:] == [429, 429]
        refused = v.second_step(keys.peek())  # even the right code waits now
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 60
        assert "Too many wrong codes" in refused.text and not v.signed_in()
        # A new password step does not reset the count, nor does another browser.
        with Visitor(live_server) as other:
            other.password_step(email)
            assert other.second_step(keys.peek()).status_code == 429
    assert any("refused" in r.getMessage() for r in caplog.records)
    with db.transaction() as session:  # once the window has passed, the right code works
        user_id = session.scalars(select(User.id).where(User.email == email)).one()
        session.execute(
            update(TwoFactorAttempt)
            .where(TwoFactorAttempt.user_id == user_id)
            .values(at=utcnow() - timedelta(hours=1))
        )
    with Visitor(live_server) as v:
        v.password_step(email)
        assert v.second_step(keys.code()).status_code == 303 and v.signed_in()


def test_the_settings_need_the_password_and_a_code(live_server: str, enrolled: tuple[str, Enrolled]) -> None:
    email, keys = enrolled
    with Visitor(live_server) as v:
        v.password_step(email)
        v.second_step(keys.code())
        regen = "/account/two-factor/recovery-codes"
        wrong = v.post_form(regen, {"regen_password": "nope nope nope"}, page="/account/two-factor")
        assert wrong.status_code == 400 and "password is not correct" in wrong.text
        fresh = v.post_form(regen, {"regen_password": PASSWORD}, page="/account/two-factor")
        assert fresh.status_code == 200 and "will not be shown again" in fresh.text
        off = "/account/two-factor/disable"
        for password, code in ((PASSWORD, ""), (PASSWORD, keys.recovery_codes[0]), ("nope nope nope", "")):
            # no code; an old recovery code (regenerated away); a wrong password
            refused = v.post_form(
                off, {"off_password": password, "off_code": code}, page="/account/two-factor"
            )
            assert refused.status_code == 400
        assert "On since" in v.get("/account").text
        new_code = RECOVERY.findall(fresh.text)[0]  # one of the new recovery codes
        turned_off = v.post_form(
            off, {"off_password": PASSWORD, "off_code": new_code}, page="/account/two-factor"
        )
        assert turned_off.status_code == 303
        assert "Two-factor sign-in is off" in v.get("/account/two-factor").text
    with Visitor(live_server) as v:  # the password alone signs in again
        assert v.password_step(email).headers["location"] == "/problems" and v.signed_in()
