"""Rate limits per real client, through a real ``python -m app`` behind a real proxy on 127.0.0.1.

The server trusts 127.0.0.1 (``TORCHDRILL_FORWARDED_ALLOW_IPS``), where :class:`ForwardingProxy`
listens and from which it connects. Clients reach the proxy from other loopback addresses
(127.0.0.2, 127.0.0.3, ...: Linux routes all of 127/8 to the loopback), so the server sees each
one's address only through the proxy's X-Forwarded-For. A client that talks to the server
directly is not a trusted proxy: whatever forwarding headers it sends are ignored.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.kit.db import Database, upgrade_database
from tests.app.proxy import ForwardingProxy
from tests.local_smtp import LocalSmtp

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "correct horse battery"
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
LINK = re.compile(r"http://\S+/reset-password\?token=([A-Za-z0-9_-]+)")
PER_EMAIL_AND_CLIENT, PER_CLIENT, PER_ACCOUNT, SIGNUPS, RESETS = 3, 8, 6, 3, 3


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Site:
    server: str  # the app itself (untrusted clients talk to it directly)
    proxy: str  # the trusted proxy in front of it
    smtp: LocalSmtp


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("behind-proxy")
    url = f"sqlite:///{folder / 'torchdrill.db'}"
    upgrade_database(url)
    Database(url).dispose()
    port = _free_port()
    with LocalSmtp() as smtp, ForwardingProxy(port) as proxy:
        env = {
            **os.environ,
            "TORCHDRILL_ENV": "development",
            "TORCHDRILL_DATABASE_URL": url,
            "TORCHDRILL_SECRET_KEY": "proxy-tests-" + uuid.uuid4().hex + uuid.uuid4().hex,
            "TORCHDRILL_HOST": "127.0.0.1",
            "TORCHDRILL_PORT": str(port),
            "TORCHDRILL_PUBLIC_URL": proxy.url,
            "TORCHDRILL_FORWARDED_ALLOW_IPS": "127.0.0.1",
            "TORCHDRILL_JUDGE_WORKERS": "2",
            "TORCHDRILL_RUNNER_SLOTS": "1",
            "TORCHDRILL_SMTP_URL": smtp.url,
            "TORCHDRILL_LOGIN_MAX_FAILURES_PER_EMAIL": str(PER_EMAIL_AND_CLIENT),
            "TORCHDRILL_LOGIN_MAX_FAILURES_PER_CLIENT": str(PER_CLIENT),
            "TORCHDRILL_LOGIN_MAX_FAILURES_PER_ACCOUNT": str(PER_ACCOUNT),
            "TORCHDRILL_SIGNUP_PER_CLIENT_HOUR": str(SIGNUPS),
            "TORCHDRILL_PASSWORD_RESET_PER_CLIENT_HOUR": str(RESETS),
            "TORCHDRILL_PASSWORD_RESET_PER_EMAIL_HOUR": "100",
        }
        env.pop("PORT", None)
        log = folder / "server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=out, stderr=out)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                assert proc.poll() is None, f"the server exited:\n{log.read_text()[-3000:]}"
                assert time.monotonic() < deadline, f"the server never answered:\n{log.read_text()[-3000:]}"
                try:
                    if httpx.get(base + "/login", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
            yield Site(base, proxy.url, smtp)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


class Visitor:
    """A browser at ``address`` (its own cookies), reaching ``base`` (the proxy, or the server)."""

    def __init__(self, base: str, address: str) -> None:
        transport = httpx.HTTPTransport(local_address=address)
        self.http = httpx.Client(base_url=base, transport=transport, follow_redirects=False, timeout=60)

    def csrf(self, page: str) -> str:
        match = CSRF.search(self.http.get(page).text)
        assert match, f"{page} has no CSRF token"
        return match.group(1)

    def login(self, email: str, password: str = PASSWORD, **headers: str) -> httpx.Response:
        data = {"email": email, "password": password, "csrf_token": self.csrf("/login")}
        return self.http.post("/login", data=data, headers=headers)

    def signup(self, email: str | None = None, **headers: str) -> httpx.Response:
        email = email or f"learner-{uuid.uuid4().hex[:8]}@example.com"
        data = {"email": email, "password": PASSWORD, "csrf_token": self.csrf("/signup")}
        return self.http.post("/signup", data=data, headers=headers)

    def forgot(self, email: str) -> httpx.Response:
        data = {"email": email, "csrf_token": self.csrf("/forgot-password")}
        return self.http.post("/forgot-password", data=data)


def new_email() -> str:
    return f"user-{uuid.uuid4().hex[:8]}@example.com"


_registrars = itertools.count(1)


def registered(site: Site) -> str:
    """A new account, signed up from an address of its own (sign-ups are limited per client)."""
    email = new_email()
    assert Visitor(site.proxy, f"127.0.20.{next(_registrars)}").signup(email).status_code == 303
    return email


def refused(answer: httpx.Response) -> bool:
    if answer.status_code != 429:
        return False
    assert int(answer.headers["retry-after"]) >= 1
    return True


def test_log_in_limits_hold_per_real_client_behind_the_proxy(site: Site) -> None:
    email = registered(site)
    guesser = Visitor(site.proxy, "127.0.2.2")
    for _ in range(PER_EMAIL_AND_CLIENT):
        assert guesser.login(email, "wrong password!").status_code == 400
    assert refused(guesser.login(email, "wrong password!"))
    assert refused(guesser.login(email))  # even the right password, from the guesser's address
    # Everyone else comes through the same proxy, and each is a client of its own.
    assert Visitor(site.proxy, "127.0.2.3").login(email).status_code == 303
    assert Visitor(site.proxy, "127.0.2.4").login(email, "wrong password!").status_code == 400


def test_a_client_limit_covers_every_email_it_tries(site: Site) -> None:
    stuffer = Visitor(site.proxy, "127.0.3.1")
    for _ in range(PER_CLIENT):
        assert stuffer.login(new_email(), "wrong password!").status_code == 400
    assert refused(stuffer.login(new_email(), "wrong password!"))
    assert Visitor(site.proxy, "127.0.3.2").login(new_email(), "wrong password!").status_code == 400


_spoofers = itertools.count(1)


@pytest.mark.parametrize(
    "spoof",
    [
        lambda i: {"X-Forwarded-For": f"10.9.8.{i}"},
        lambda i: {"X-Forwarded-For": f"10.9.8.{i}, 127.0.0.1"},
        lambda i: {"X-Forwarded-For": "127.0.0.1"},
        lambda i: {
            "X-Real-IP": f"10.9.7.{i}",
            "True-Client-IP": f"10.9.6.{i}",
            "CF-Connecting-IP": f"10.9.5.{i}",
        },
        lambda i: {"Forwarded": f'for="10.9.4.{i}";proto=https'},
        lambda i: {"X-Forwarded-For": f"10.9.3.{i}", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "x"},
    ],
    ids=["xff", "xff-ending-trusted", "xff-trusted", "other-headers", "forwarded", "xff-proto-host"],
)
def test_an_untrusted_peer_cannot_spoof_its_address(site: Site, spoof: object) -> None:
    make = spoof  # type: ignore[assignment]
    address = f"127.0.4.{next(_spoofers)}"
    email = registered(site)
    direct = Visitor(site.server, address)  # straight to the server: not a trusted proxy
    for i in range(PER_EMAIL_AND_CLIENT):
        assert direct.login(email, "wrong password!", **make(i)).status_code == 400  # type: ignore[operator]
    assert refused(direct.login(email, **make(99)))  # type: ignore[operator]
    # Through the proxy, a client's own X-Forwarded-For goes before the address the proxy adds: it is
    # the proxy's word that counts.
    via_proxy = Visitor(site.proxy, address.replace("127.0.4.", "127.0.5."))
    for i in range(PER_EMAIL_AND_CLIENT):
        assert via_proxy.login(email, "wrong password!", **make(i)).status_code == 400  # type: ignore[operator]
    assert refused(via_proxy.login(email, **make(42)))  # type: ignore[operator]


def test_guessers_everywhere_cannot_lock_the_owner_out(site: Site) -> None:
    owner_address = "127.0.6.1"
    email = registered(site)
    owner = Visitor(site.proxy, owner_address)
    assert owner.login(email).status_code == 303  # this browser is now known to the account
    owner.http.cookies.delete("torchdrill_session")  # logged out later; the browser keeps its cookies
    # A botnet: many addresses, each below its own (email, client) limit, all on the owner's email.
    tries = 0
    for n in range(2, 2 + PER_ACCOUNT):
        bot = Visitor(site.proxy, f"127.0.7.{n}")
        answer = bot.login(email, f"guess number {n}")
        tries += answer.status_code == 400
    assert tries == PER_ACCOUNT
    # Brute force of the account is now bounded: a fresh address, a fresh browser, no more guesses.
    fresh = Visitor(site.proxy, "127.0.7.200")
    refusal = fresh.login(email, "another guess")
    assert refused(refusal) and "browser you used before" in refusal.text
    # The owner's own browser still logs in, and so does a second known browser after a mistake.
    assert owner.login(email, "typo in it!").status_code == 400
    assert owner.login(email).status_code == 303
    owner.http.cookies.delete("torchdrill_session")
    # A copy of the owner's cookie, used from many addresses, gets a handful of guesses in all.
    copied = owner.http.cookies["torchdrill_session_known"]
    thieves = [Visitor(site.proxy, f"127.0.7.{n}") for n in range(100, 100 + PER_EMAIL_AND_CLIENT + 1)]
    for thief in thieves:
        thief.http.cookies.set("torchdrill_session_known", copied)
    for thief in thieves[:PER_EMAIL_AND_CLIENT]:
        assert thief.login(email, "a guess with a copied cookie").status_code == 400
    assert refused(thieves[-1].login(email, "one more guess"))
    assert refused(owner.login(email))  # the copy's limit is the owner browser's: same browser id
    # ... until the owner signs in anew: from the mail, the browser gets a new id (below).
    # A cookie from another account, or a forged one, is no key to this account.
    other = registered(site)
    stranger = Visitor(site.proxy, "127.0.7.201")
    assert stranger.login(other).status_code == 303
    stranger.http.cookies.delete("torchdrill_session")
    assert refused(stranger.login(email, "guess with another account's cookie"))
    stranger.http.cookies.set("torchdrill_session_known", "W10.forged.signature")
    assert refused(stranger.login(email, "guess with a forged cookie"))
    # The owner on a new device resets the password from the mailed link: that browser is known.
    new_device = Visitor(site.proxy, "127.0.6.2")
    assert refused(new_device.login(email))
    assert new_device.forgot(email).status_code == 200
    token = LINK.search(site.smtp.wait_for(email)[-1].get_content()).group(1)  # type: ignore[union-attr]
    page = f"/reset-password?token={token}"
    data = {"token": token, "password": "a brand new passphrase", "csrf_token": new_device.csrf(page)}
    assert new_device.http.post("/reset-password", data=data).status_code == 303
    assert new_device.login(email, "a brand new passphrase").status_code == 303
    # The first browser, whose cookie was copied, resets too and gets a new id: it is free again,
    # while the copy still counts as the old, limited one.
    assert owner.forgot(email).status_code == 200
    token = LINK.search(site.smtp.wait_for(email, count=2)[-1].get_content()).group(1)  # type: ignore[union-attr]
    page = f"/reset-password?token={token}"
    data = {"token": token, "password": "the newest passphrase", "csrf_token": owner.csrf(page)}
    assert owner.http.post("/reset-password", data=data).status_code == 303
    assert owner.http.cookies["torchdrill_session_known"] != copied
    assert owner.login(email, "the newest passphrase").status_code == 303
    assert refused(thieves[0].login(email, "the newest passphrase"))


def test_sign_ups_are_limited_per_client(site: Site) -> None:
    for _ in range(SIGNUPS):  # a class behind one address, each at a browser of their own
        assert Visitor(site.proxy, "127.0.8.1").signup().status_code == 303
    burst = Visitor(site.proxy, "127.0.8.1").signup()
    assert refused(burst) and "Too many sign-ups" in burst.text
    api = httpx.Client(base_url=site.proxy, transport=httpx.HTTPTransport(local_address="127.0.8.1"))
    answer = api.post("/api/v1/auth/register", json={"email": new_email(), "password": PASSWORD})
    assert refused(answer) and answer.json()["error"] == "rate_limited"
    # Another client behind the same proxy signs up; a direct peer's forged header changes nothing.
    assert Visitor(site.proxy, "127.0.8.2").signup().status_code == 303
    for i in range(SIGNUPS):
        direct = Visitor(site.server, "127.0.8.3")
        assert direct.signup(**{"X-Forwarded-For": f"10.1.1.{i}"}).status_code == 303
    assert refused(Visitor(site.server, "127.0.8.3").signup(**{"X-Forwarded-For": "10.1.1.200"}))


def test_a_burst_of_parallel_sign_ups_stays_within_the_limit(site: Site) -> None:
    visitors = [Visitor(site.proxy, "127.0.9.1") for _ in range(12)]
    tokens = [v.csrf("/signup") for v in visitors]

    def sign_up(i: int) -> int:
        data = {"email": new_email(), "password": PASSWORD, "csrf_token": tokens[i]}
        return visitors[i].http.post("/signup", data=data).status_code

    with ThreadPoolExecutor(max_workers=12) as pool:
        statuses = list(pool.map(sign_up, range(12)))
    assert 1 <= statuses.count(303) <= SIGNUPS and statuses.count(429) >= 12 - SIGNUPS, statuses


def test_reset_requests_are_limited_per_client_not_site_wide(site: Site) -> None:
    asker = Visitor(site.proxy, "127.0.10.1")
    for _ in range(RESETS):
        assert asker.forgot(new_email()).status_code == 200
    assert refused(asker.forgot(new_email()))
    assert Visitor(site.proxy, "127.0.10.2").forgot(new_email()).status_code == 200
