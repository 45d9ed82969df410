"""More ways to get past the second step, over real HTTP: a race with one code, forged requests,
another account's recovery code, a foreign ``next``, and guessing the password of the settings."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import update

from app.accounts.models import User
from app.accounts.service import sign_up
from app.kit.db import Database
from tests.app.accounts.two_factor_http import Enrolled, Visitor, enrol
from tests.app.cli.conftest import live_server
from tests.app.conftest import PASSWORD

__all__ = ["live_server"]


def new_enrolled(url: str, db: Database) -> tuple[str, Enrolled]:
    email = f"twofa-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD)
    with Visitor(url) as v:
        assert v.password_step(email).status_code == 303
        return email, enrol(v)


@pytest.fixture
def enrolled(live_server: str, db: Database) -> Iterator[tuple[str, Enrolled]]:
    yield new_enrolled(live_server, db)


def test_the_same_code_at_the_same_moment_signs_in_once(
    live_server: str, enrolled: tuple[str, Enrolled]
) -> None:
    email, keys = enrolled
    browsers = [Visitor(live_server) for _ in range(4)]
    try:
        tokens = []
        for b in browsers:
            assert b.password_step(email).status_code == 303
            tokens.append(b.csrf("/login/two-factor"))
        code = keys.code()
        start = threading.Barrier(len(browsers))

        def race(i: int) -> int:
            start.wait()
            data = {"code": code, "csrf_token": tokens[i]}
            return browsers[i].http.post("/login/two-factor", data=data).status_code

        with ThreadPoolExecutor(len(browsers)) as pool:
            statuses = sorted(pool.map(race, range(len(browsers))))
        assert statuses == [303] + [400] * (len(browsers) - 1), statuses
        assert sum(b.signed_in() for b in browsers) == 1
    finally:
        for b in browsers:
            b.http.close()


def test_forged_requests_and_borrowed_codes_are_refused(
    live_server: str, enrolled: tuple[str, Enrolled], db: Database
) -> None:
    email, keys = enrolled
    _other, other_keys = new_enrolled(live_server, db)
    with Visitor(live_server) as v:
        assert v.password_step(email, next_path="//evil.example/phish").status_code == 303
        # No CSRF token, or a made-up one: refused before the code is looked at.
        assert v.http.post("/login/two-factor", data={"code": keys.peek()}).status_code == 403
        forged = v.http.post("/login/two-factor", data={"code": keys.peek(), "csrf_token": "x" * 43})
        assert forged.status_code == 403 and not v.signed_in()
        # Another account's recovery code is nothing here.
        assert v.second_step(other_keys.recovery_codes[0]).status_code == 400 and not v.signed_in()
        # The `next` of the password step stays on this site.
        done = v.second_step(keys.code())
        assert done.status_code == 303 and done.headers["location"] == "/problems"
        # The settings' forms want the CSRF token too, and guesses of the password count.
        off = "/account/two-factor/disable"
        no_csrf = v.http.post(off, data={"off_password": PASSWORD, "off_code": keys.peek()})
        assert no_csrf.status_code == 403
        guesses = [
            v.post_form(
                off, {"off_password": f"guess {n} guess", "off_code": "1"}, page="/account"
            ).status_code
            for n in range(6)
        ]
        assert guesses == [400] * 5 + [429]
        assert "On since" in v.get("/account").text


def test_a_password_reset_ends_the_pending_step(
    live_server: str, enrolled: tuple[str, Enrolled], db: Database
) -> None:
    email, keys = enrolled
    with Visitor(live_server) as v:
        assert v.password_step(email).headers["location"] == "/login/two-factor"
        with db.transaction() as session:  # what a password reset does to the account's sessions
            session.execute(
                update(User).where(User.email == email).values(session_epoch=User.session_epoch + 1)
            )
        ended = v.second_step(keys.peek(), page="/login")
        assert ended.status_code == 400 and "expired" in ended.text and not v.signed_in()
