"""Sessions that end, attacked through real HTTP (uvicorn on 127.0.0.1): copied cookies after
logout, a password reset, a password change and "sign out everywhere"; session fixation;
tampered and forged cookies; another user's session id; expiry; last-seen writes."""

from __future__ import annotations

import base64
import json
import re
import uuid
from collections.abc import Iterator
from datetime import timedelta

import httpx
import itsdangerous
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete, select, update

from app.accounts import service, tokens
from app.accounts.models import PasswordReset, User, UserSession
from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.main import create_app
from tests.app.cli.conftest import serve_in_thread
from tests.app.conftest import PASSWORD, settings_for
from tests.local_smtp import LocalSmtp

COOKIE = "torchdrill_session"
NEW_PASSWORD = "a brand new passphrase"
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
LINK = re.compile(r"/reset-password\?token=([A-Za-z0-9_-]+)")


@pytest.fixture
def smtp() -> Iterator[LocalSmtp]:
    with LocalSmtp() as server:
        yield server


@pytest.fixture
def site(db: Database, runner: JudgeRunner, smtp: LocalSmtp) -> Iterator[tuple[str, FastAPI]]:
    """The app with a real mail server, served by uvicorn on 127.0.0.1."""
    settings = settings_for(db.url).model_copy(
        update={"smtp_url": smtp.url, "mail_from": "drill@example.org"}
    )
    application = create_app(settings, database=db, runner=runner)
    with TestClient(application):
        url, server, thread = serve_in_thread(application)
        yield url, application
        server.should_exit = True
        thread.join(timeout=10)
    with db.transaction() as session:
        session.execute(delete(PasswordReset))


@pytest.fixture
def base(site: tuple[str, FastAPI]) -> str:
    return site[0]


class Visitor:
    """A browser over real HTTP: its own cookie jar, the CSRF chores, and copies of its cookie."""

    def __init__(self, base: str, cookie: str | None = None, user_agent: str = "test-browser") -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, follow_redirects=False, headers={"User-Agent": user_agent})
        if cookie is not None:
            self.http.cookies.set(COOKIE, cookie, domain="127.0.0.1")
        self.email = ""

    def csrf(self, page: str = "/problems") -> str:
        match = CSRF.search(self.http.get(page).text)
        assert match, "the page has no CSRF token"
        return match.group(1)

    def form(self, path: str, data: dict[str, str], page: str = "/problems") -> httpx.Response:
        return self.http.post(path, data={**data, "csrf_token": self.csrf(page)})

    def signup(self) -> Visitor:
        self.email = f"user-{uuid.uuid4().hex[:8]}@example.com"
        answer = self.form("/signup", {"email": self.email, "password": PASSWORD}, "/signup")
        assert answer.status_code == 303, answer.text
        return self

    def login(self, email: str, password: str = PASSWORD) -> httpx.Response:
        self.email = email
        return self.form("/login", {"email": email, "password": password})

    @property
    def cookie(self) -> str:
        value = self.http.cookies.get(COOKIE)
        assert value, "no session cookie"
        return value

    def copy(self) -> Visitor:
        """What a thief holds: the cookie as it is now, in another client."""
        return Visitor(self.base, self.cookie, user_agent="thief")

    def signed_in_as(self) -> str | None:
        """The account /account shows, or None when it sends the visitor to log in."""
        answer = self.http.get("/account")
        if answer.status_code == 303:
            assert answer.headers["location"].startswith("/login")
            return None
        assert answer.status_code == 200, answer.text
        match = re.search(r'<p class="muted">([^<]+) · ', answer.text)
        assert match, "the account page does not name its account"
        return match.group(1)

    def session_ids(self) -> list[int]:
        return [int(i) for i in re.findall(r'data-session-id="(\d+)"', self.http.get("/account").text)]


def make_token(db: Database, email: str) -> str:
    with db.transaction() as session:
        _row, plain = tokens.create_token(
            session, service.get_user_by_email(session, email), "laptop", utcnow()
        )
    return plain


def me(base: str, token: str) -> int:
    return httpx.get(f"{base}/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code


def test_a_copied_cookie_is_dead_after_logout(base: str) -> None:
    owner = Visitor(base).signup()
    thief = owner.copy()
    assert thief.signed_in_as() == owner.email  # so the checks below can fail
    assert owner.form("/logout", {}).status_code == 303
    assert owner.signed_in_as() is None
    assert thief.signed_in_as() is None
    # Nor can the copy act: its CSRF token went with the session.
    assert thief.http.post("/account/tokens", data={"name": "x"}).status_code == 403


def test_a_copied_cookie_and_a_prior_token_are_dead_after_a_reset(
    base: str, db: Database, smtp: LocalSmtp
) -> None:
    owner = Visitor(base).signup()
    laptop = Visitor(base, user_agent="laptop")
    assert laptop.login(owner.email).status_code == 303
    thief = owner.copy()
    token = make_token(db, owner.email)
    assert me(base, token) == 200 and thief.signed_in_as() == owner.email

    stranger = Visitor(base)
    assert stranger.form("/forgot-password", {"email": owner.email}, "/forgot-password").status_code == 200
    (mail,) = smtp.wait_for(owner.email, count=1)
    body = mail.get_content()
    assert "revokes your API tokens" in body and "signs you out everywhere" in body
    link = LINK.search(body)
    assert link
    page = stranger.http.get(f"/reset-password?token={link.group(1)}")
    assert page.status_code == 200 and "all your API tokens are revoked" in page.text
    done = stranger.form(
        "/reset-password",
        {"token": link.group(1), "password": NEW_PASSWORD},
        f"/reset-password?token={link.group(1)}",
    )
    assert done.status_code == 303

    assert thief.signed_in_as() is None
    assert owner.signed_in_as() is None and laptop.signed_in_as() is None
    assert me(base, token) == 401
    again = Visitor(base)
    assert again.login(owner.email, NEW_PASSWORD).status_code == 303 and again.signed_in_as() == owner.email


def test_a_password_change_keeps_this_browser_and_ends_every_other_session_and_token(
    base: str, db: Database
) -> None:
    owner = Visitor(base).signup()
    laptop = Visitor(base, user_agent="laptop")
    assert laptop.login(owner.email).status_code == 303
    thief = owner.copy()
    before = owner.cookie
    token = make_token(db, owner.email)
    account = owner.http.get("/account").text
    assert "revokes all your API tokens" in account and me(base, token) == 200

    changed = owner.form(
        "/account/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD}, "/account"
    )
    assert changed.status_code == 303
    page = owner.http.get("/account").text
    assert "your API tokens were revoked" in page and owner.email in page  # still signed in: rotated
    assert owner.cookie != before
    assert thief.signed_in_as() is None  # the cookie from before the change
    assert laptop.signed_in_as() is None
    assert me(base, token) == 401
    assert len(owner.session_ids()) == 1


def test_a_wrong_current_password_changes_nothing(base: str, db: Database) -> None:
    owner = Visitor(base).signup()
    laptop = Visitor(base)
    assert laptop.login(owner.email).status_code == 303
    token = make_token(db, owner.email)
    refused = owner.form(
        "/account/password", {"current_password": "wrong one!", "new_password": NEW_PASSWORD}, "/account"
    )
    assert refused.status_code == 400 and "not correct" in refused.text
    assert laptop.signed_in_as() == owner.email and me(base, token) == 200


def test_sign_out_everywhere_ends_every_session_and_every_copy(base: str, db: Database) -> None:
    owner = Visitor(base).signup()
    laptop = Visitor(base, user_agent="laptop")
    assert laptop.login(owner.email).status_code == 303
    thieves = [owner.copy(), laptop.copy()]
    token = make_token(db, owner.email)
    assert all(t.signed_in_as() == owner.email for t in thieves)
    ended = owner.form("/account/sessions/end-all", {}, "/account")
    assert ended.status_code == 303 and ended.headers["location"] == "/login"
    assert [v.signed_in_as() for v in (owner, laptop, *thieves)] == [None] * 4
    assert me(base, token) == 200  # tokens are managed on their own (the page says so)


def test_one_session_ends_from_the_list_and_nobody_ends_anyone_elses(base: str) -> None:
    owner = Visitor(base).signup()
    laptop = Visitor(base, user_agent="laptop")
    assert laptop.login(owner.email).status_code == 303
    page = owner.http.get("/account").text
    assert "laptop" in page and "(this browser)" in page
    ids = owner.session_ids()
    assert len(ids) == 2
    attacker = Visitor(base).signup()
    (attacker_id,) = attacker.session_ids()
    # Another user's session, a made-up id, one already ended: 404, nothing ends.
    for target in (*ids, 2**31 - 1):
        answer = attacker.form(f"/account/sessions/{target}/end", {}, "/account")
        assert answer.status_code == 404, (target, answer.status_code)
    assert owner.signed_in_as() == owner.email and laptop.signed_in_as() == owner.email
    assert attacker.form(f"/account/sessions/{ids[0]}/end", {}, "/account").status_code == 404
    assert attacker.form(f"/account/sessions/{attacker_id}x/end", {}, "/account").status_code == 422

    this = _this_session(owner)
    (other,) = [i for i in ids if i != this]
    assert owner.form(f"/account/sessions/{other}/end", {}, "/account").status_code == 303
    assert laptop.signed_in_as() is None and owner.signed_in_as() == owner.email
    assert owner.form(f"/account/sessions/{other}/end", {}, "/account").status_code == 404  # ended already
    # Ending this browser's own session signs it out.
    assert owner.form(f"/account/sessions/{this}/end", {}, "/account").headers["location"] == "/login"
    assert owner.signed_in_as() is None


def _this_session(visitor: Visitor) -> int:
    page = visitor.http.get("/account").text
    match = re.search(r'data-session-id="(\d+)">\s*<td>[^<]*<strong>\(this browser\)', page)
    assert match, "no session is marked as this browser"
    return int(match.group(1))


def test_fixation_a_cookie_from_before_sign_in_is_not_the_one_after(base: str) -> None:
    # Anonymous: the attacker takes a cookie (it holds a CSRF token) and plants it in the victim's browser.
    attacker = Visitor(base)
    attacker.csrf("/login")
    planted = attacker.cookie
    victim = Visitor(base, planted)
    victim.signup()
    assert victim.cookie != planted
    assert Visitor(base, planted).signed_in_as() is None
    # Signed in: the attacker plants their own session; the victim logs in over it.
    attacker.signup()
    own = attacker.cookie
    victim_browser = Visitor(base, own)
    assert victim_browser.signed_in_as() == attacker.email  # so the check below can fail
    assert victim_browser.login(victim.email).status_code == 303
    assert victim_browser.cookie != own
    assert victim_browser.signed_in_as() == victim.email
    # Signing in over a session ends it: the planted cookie is dead, and it never was the victim's.
    assert Visitor(base, own).signed_in_as() is None


def _sign(payload: dict[str, object], secret: str) -> str:
    data = base64.b64encode(json.dumps(payload).encode())
    return itsdangerous.TimestampSigner(secret).sign(data).decode()


def test_tampered_and_forged_cookies_sign_nobody_in(base: str, db: Database) -> None:
    owner = Visitor(base).signup()
    good = owner.cookie
    data, _, signature = good.partition(".")
    flipped = data[:-1] + ("A" if data[-1] != "A" else "B")
    for forged in (
        flipped + "." + signature,  # the payload changed, the signature kept
        good[:-2] + ("AA" if not good.endswith("AA") else "BB"),  # the signature changed
        _sign({"sid": "x" * 43}, "not-the-secret-key-" + "y" * 30),  # signed with another key
        "",
    ):
        assert Visitor(base, forged).signed_in_as() is None, forged
    secret = settings_for(db.url).secret_key
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == owner.email)).one()
        stored = session.scalars(select(UserSession.id_hash).where(UserSession.user_id == user.id)).one()
    # Even with the secret key: a cookie of the old kind (a user id), or the hash a database copy
    # holds, or a made-up id, signs nobody in; only the session's own random id does.
    for payload in ({"uid": user.id, "epoch": 0}, {"sid": stored}, {"sid": "A" * 43}, {"sid": 1}):
        assert Visitor(base, _sign(payload, secret)).signed_in_as() is None, payload
    assert Visitor(base, good).signed_in_as() == owner.email


def test_an_expired_session_is_dead(base: str, db: Database) -> None:
    owner = Visitor(base).signup()
    thief = owner.copy()
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == owner.email)).one()
        session.execute(
            update(UserSession)
            .where(UserSession.user_id == user.id)
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    assert thief.signed_in_as() is None and owner.signed_in_as() is None


def test_last_seen_is_written_at_most_once_a_minute(base: str, db: Database) -> None:
    owner = Visitor(base).signup()
    long_ago = utcnow() - timedelta(minutes=5)

    def last_seen() -> object:
        with db.transaction() as session:
            user = session.scalars(select(User).where(User.email == owner.email)).one()
            return session.scalars(
                select(UserSession.last_seen_at).where(UserSession.user_id == user.id)
            ).one()

    with db.transaction() as session:
        session.execute(update(UserSession).values(last_seen_at=long_ago))
    assert owner.signed_in_as() == owner.email
    first = last_seen()
    assert first != long_ago  # the first visit after a minute moves it
    for _ in range(3):
        owner.http.get("/problems")
    assert last_seen() == first  # later visits within the minute do not write
