"""A real Torchdrill server and Debian's Chromium, driven by Playwright (marked ``browser``).

One server for the session: a fresh SQLite database in a temporary folder, migrated with
``alembic upgrade head``, the real problem bank plus the small test bank imported by the importer
CLI, a few accounts made through the accounts service, then ``python -m app`` (uvicorn and the
real sandboxed runner) on a free 127.0.0.1 port. Every test gets its own browser context (no
shared cookies), fails if the page asked any host but 127.0.0.1, and leaves a screenshot in
``tests/artifacts/``. Playwright never downloads a browser: it launches /usr/bin/chromium.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request, sync_playwright

from app.accounts.premium import grant_premium, is_premium
from app.accounts.service import get_user_by_email, sign_up
from app.kit.db import Database, upgrade_database, utcnow
from tests.local_smtp import LocalSmtp

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("TORCHDRILL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PASSWORD = "correct horse battery"
BANKS = (ROOT / "problems", ROOT / "tests" / "app" / "fixtures" / "bank")
START_TIMEOUT_S = 120
WEBHOOK_SECRET = "whsec_browser_" + "b" * 24


@dataclass(frozen=True)
class Accounts:
    student: str
    premium: str
    instructor: str
    author: str  # an admin: authors site-wide problems, which every learner sees once published


@dataclass(frozen=True)
class Server:
    url: str
    database: Database
    accounts: Accounts
    log: Path
    smtp: LocalSmtp  # the server's mail goes here (a real SMTP server on 127.0.0.1)

    def new_account(self, role: str = "student") -> str:
        """A learner no other test has touched (for assertions about one's own progress)."""
        email = f"{role}-{uuid.uuid4().hex[:8]}@example.com"
        with self.database.transaction() as session:
            sign_up(session, email, PASSWORD, role=role)
        return email


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until /healthz says the database and the runner are ready (the sandbox warms up first)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(
        f"the server did not become healthy in {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}"
    )


def _make_accounts(db: Database) -> Accounts:
    tag = uuid.uuid4().hex[:6]
    accounts = Accounts(
        f"student-{tag}@example.com",
        f"premium-{tag}@example.com",
        f"teacher-{tag}@example.com",
        f"author-{tag}@example.com",
    )
    with db.transaction() as session:
        sign_up(session, accounts.student, PASSWORD)
        premium = sign_up(session, accounts.premium, PASSWORD)
        grant_premium(session, premium, 30, utcnow())
        sign_up(session, accounts.instructor, PASSWORD, role="instructor")
        sign_up(session, accounts.author, PASSWORD, role="admin")
    with db.transaction() as session:  # the entitlement really holds, as the app will see it
        assert is_premium(get_user_by_email(session, accounts.premium), utcnow())
    return accounts


@contextlib.contextmanager
def running_server(folder: Path) -> Iterator[Server]:
    """A migrated SQLite database in ``folder`` with both banks and the test accounts, and the app
    serving it on a free port until the block ends (the fixture below; ``scripts/screenshots.py``)."""
    smtp = LocalSmtp().__enter__()
    url = f"sqlite:///{folder / 'torchdrill.db'}"
    port = _free_port()
    env = {
        **os.environ,
        "TORCHDRILL_ENV": "development",
        "TORCHDRILL_DATABASE_URL": url,
        "TORCHDRILL_SECRET_KEY": "browser-tests-" + uuid.uuid4().hex + uuid.uuid4().hex,
        "TORCHDRILL_HOST": "127.0.0.1",
        "TORCHDRILL_PORT": str(port),
        "TORCHDRILL_JUDGE_WORKERS": "2",
        # Billing on, with keys that never reach a network: tests post webhooks signed with this secret.
        "TORCHDRILL_BILLING_PROVIDER": "stripe",
        "TORCHDRILL_STRIPE_SECRET_KEY": "sk_test_browser_never_used",
        "TORCHDRILL_STRIPE_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "TORCHDRILL_STRIPE_PRICE_ID": "price_browser_test",
        "TORCHDRILL_SMTP_URL": smtp.url,
        "TORCHDRILL_MAIL_FROM": "drill@example.org",
        # The stored-XSS tests post every attempt (the limits are tested in tests/app/solutions,
        # tests/app/discussion and tests/app/moderation).
        "TORCHDRILL_SOLUTION_POSTS_PER_MINUTE": "1000",
        "TORCHDRILL_DISCUSSION_POSTS_PER_MINUTE": "1000",
        "TORCHDRILL_POST_REPORTS_PER_MINUTE": "1000",
        "TORCHDRILL_API_SUBMISSIONS_PER_MINUTE": "1000",
    }
    env.pop("PORT", None)
    upgrade_database(url)
    for bank in BANKS:
        imported = subprocess.run(
            [sys.executable, "-m", "app.problems.importer", str(bank)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert imported.returncode == 0, f"importing {bank} failed:\n{imported.stdout}\n{imported.stderr}"
    db = Database(url)
    accounts = _make_accounts(db)
    log = folder / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base, proc, log)
        yield Server(base, db, accounts, log, smtp)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        db.dispose()
        smtp.__exit__(None, None, None)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("browser-server")) as running:
        yield running


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("TORCHDRILL_SKIP_TEST_DEPS") == "1":
            pytest.skip(f"{CHROMIUM} is missing and TORCHDRILL_SKIP_TEST_DEPS=1")
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make setup does)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


class Visit:
    """A fresh browser context (its own cookies) on the test server, watching every request it makes."""

    def __init__(self, chromium: Browser, server: Server, name: str, **options: Any) -> None:
        self.server = server
        self.name = name
        options = {"viewport": {"width": 1360, "height": 900}, **options}
        self.context: BrowserContext = chromium.new_context(base_url=server.url, **options)
        self.context.set_default_timeout(10_000)
        self.foreign: list[str] = []
        self.context.on("request", self._record)
        self.page: Page = self.context.new_page()
        self.shots = 0

    def _record(self, request: Request) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname != "127.0.0.1":
            self.foreign.append(request.url)

    def screenshot(self, label: str = "", full_page: bool = True) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.shots += 1
        path = ARTIFACTS / f"{self.name}{'-' + label if label else ''}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def login(self, email: str, next_path: str = "/problems") -> None:
        page = self.page
        page.goto(f"/login?next={next_path}")
        page.get_by_label("Email").fill(email)
        page.get_by_label("Password").fill(PASSWORD)
        page.locator("main").get_by_role("button", name="Log in").click()
        page.wait_for_url(lambda url: urlsplit(url).path == urlsplit(next_path).path)


class Visits:
    """Opens browser contexts for one test; on teardown screenshots, closes, and checks the hosts asked."""

    def __init__(self, chromium: Browser, server: Server, test_name: str) -> None:
        self.chromium = chromium
        self.server = server
        self.test_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name)
        self.opened: list[Visit] = []

    def new(self, label: str = "", **options: Any) -> Visit:
        name = self.test_name + (f"-{label}" if label else "")
        self.opened.append(Visit(self.chromium, self.server, name, **options))
        return self.opened[-1]

    def close(self) -> None:
        for v in self.opened:
            if v.shots == 0:
                with contextlib.suppress(Exception):  # the page may be gone after a failure
                    v.screenshot("end")
            v.context.close()


@pytest.fixture
def visits(chromium: Browser, server: Server, request: pytest.FixtureRequest) -> Iterator[Visits]:
    opened = Visits(chromium, server, request.node.name)
    try:
        yield opened
    finally:
        opened.close()
    foreign = [url for v in opened.opened for url in v.foreign]
    assert not foreign, f"the pages asked hosts other than 127.0.0.1: {foreign}"


@pytest.fixture
def visit(visits: Visits) -> Visit:
    """The test's browser tab (a screenshot of where it ended is saved even when the test fails)."""
    return visits.new()
