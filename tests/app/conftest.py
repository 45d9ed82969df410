"""Fixtures for the web app's tests.

One schema per database backend per test session, built by ``alembic upgrade head``; the tiny
fixture bank (tests/app/fixtures/bank) is imported once with the real sandboxed runner; after each
test every row a test created is deleted again, so tests are isolated but the suite stays fast.
Set TORCHDRILL_TEST_DATABASE_URL to a PostgreSQL URL to run every database test on both backends.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, delete, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.accounts.service import sign_up
from app.kit.db import Database, upgrade_database
from app.kit.runner import JudgeRunner
from app.kit.settings import Settings
from app.main import create_app
from app.problems.importer import import_bank
from app.problems.models import Problem, ProblemVersion
from app.progress.models import LearnerProblem, ProblemStats
from app.submissions.models import Submission

FIXTURES = Path(__file__).parent / "fixtures"
BANK = FIXTURES / "bank"
SEEDED = ("add-tensors", "scale-rows", "sum-of-squares")
PASSWORD = "correct horse battery"

BACKENDS = ["sqlite"]
if os.environ.get("TORCHDRILL_TEST_DATABASE_URL", "").startswith("postgresql"):
    BACKENDS.append("postgresql")


@pytest.fixture(scope="session")
def runner() -> JudgeRunner:
    from runner import get_runner

    return get_runner()


def _postgres_database(base_url: str) -> tuple[str, Callable[[], None]]:
    """A brand-new database on the server of ``base_url``, and a function that drops it."""
    name = f"torchdrill_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base_url, isolation_level="AUTOCOMMIT")
    for attempt in range(20):  # CREATE DATABASE fails while anyone else is copying template1
        try:
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
            break
        except OperationalError as exc:
            if "being accessed by other users" not in str(exc) or attempt == 19:
                raise
            time.sleep(0.5)

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    url = make_url(base_url).set(database=name).render_as_string(hide_password=False)
    return url, drop


@pytest.fixture(scope="session", params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    drop: Callable[[], None] | None = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'torchdrill.db'}"
    else:
        url, drop = _postgres_database(os.environ["TORCHDRILL_TEST_DATABASE_URL"])
    upgrade_database(url)
    db = Database(url)
    try:
        yield db
    finally:
        db.dispose()
        if drop is not None:
            drop()


@pytest.fixture(scope="session")
def seeded(database: Database, runner: JudgeRunner) -> Database:
    with database.transaction() as session:
        report = import_bank(session, BANK, runner)
    assert report.ok, report.summary()
    assert sorted(report.created) == sorted(SEEDED)
    return database


def settings_for(url: str) -> Settings:
    # The public URL is the test client's own address (TestClient sends Host: testserver), so the
    # allowed-hosts check lets the suite in and mailed links read http://testserver/...
    return Settings(
        env="development",
        database_url=url,
        secret_key="test-secret-" + "x" * 40,
        judge_workers=2,
        public_url="http://testserver",
        # Every test signs up from the same client address; tests of the limit set their own.
        signup_per_client_hour=100_000,
    )


@pytest.fixture(scope="session")
def app(seeded: Database, runner: JudgeRunner) -> Iterator[FastAPI]:
    application = create_app(settings_for(seeded.url), database=seeded, runner=runner)
    with TestClient(application):  # runs the lifespan once: recovery on start, dispatcher shutdown at end
        yield application


@pytest.fixture
def make_app(seeded: Database, runner: JudgeRunner) -> Callable[..., FastAPI]:
    """Another app instance on the same database (a "restarted server"); overrides by keyword."""

    def make(**overrides: Any) -> FastAPI:
        return create_app(settings_for(seeded.url), **({"database": seeded, "runner": runner} | overrides))

    return make


def wait_idle(app: FastAPI, timeout: float = 30.0) -> None:
    """Wait until the in-process dispatcher has judged everything; fail loudly if it never does."""
    dispatcher = app.state.dispatcher
    deadline = time.monotonic() + timeout
    while hasattr(dispatcher, "idle") and not dispatcher.idle():
        assert time.monotonic() < deadline, f"the dispatcher was still busy after {timeout:g} s"
        time.sleep(0.02)


@pytest.fixture
def db(app: FastAPI, seeded: Database) -> Iterator[Database]:
    """The test database; rows created by the test are removed afterwards."""
    yield seeded
    wait_idle(app)
    with seeded.transaction() as session:
        session.execute(delete(Submission))
        session.execute(delete(LearnerProblem))  # the maintained state goes with the rows it counts
        session.execute(delete(ProblemStats))
        session.execute(text("DELETE FROM users"))
        extra = [p.id for p in session.query(Problem).where(Problem.slug.not_in(SEEDED))]
        if extra:
            session.execute(
                Problem.__table__.update().where(Problem.id.in_(extra)).values(current_version_id=None)
            )
            session.execute(delete(ProblemVersion).where(ProblemVersion.problem_id.in_(extra)))
            session.execute(delete(Problem).where(Problem.id.in_(extra)))


class Browser:
    """A TestClient with its own cookie jar, plus the chores of a real visitor (CSRF, log-in)."""

    def __init__(self, app: FastAPI) -> None:
        self.client = TestClient(app, follow_redirects=False)
        self.email: str | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def csrf(self, page: str = "/problems") -> str:
        match = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.client.get(page).text)
        assert match, "page has no CSRF token"
        return match.group(1)

    def signup(self, email: str | None = None, password: str = PASSWORD) -> Any:
        email = f"learner-{uuid.uuid4().hex[:8]}@example.com" if email is None else email
        response = self.client.post(
            "/signup", data={"email": email, "password": password, "csrf_token": self.csrf("/signup")}
        )
        if response.status_code == 303:
            self.email = email
        return response

    def login(self, email: str, password: str = PASSWORD) -> Any:
        response = self.client.post(
            "/login", data={"email": email, "password": password, "csrf_token": self.csrf("/login")}
        )
        if response.status_code == 303:
            self.email = email
        return response

    def submit(self, slug: str, code: str, mode: str = "submit") -> Any:
        return self.client.post(
            f"/api/problems/{slug}/submissions",
            json={"code": code, "mode": mode},
            headers={"X-CSRF-Token": self.csrf()},
        )

    def verdict(self, submission_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        while True:
            body: dict[str, Any] = self.client.get(
                f"/api/submissions/{submission_id}?wait=true&timeout=30"
            ).json()
            if body.get("status") == "finished" or time.monotonic() > deadline:
                return body


@pytest.fixture
def new_browser(app: FastAPI, db: Database) -> Callable[[], Browser]:
    return lambda: Browser(app)


@pytest.fixture
def browser(new_browser: Callable[[], Browser]) -> Browser:
    return new_browser()


@pytest.fixture
def learner(new_browser: Callable[[], Browser]) -> Browser:
    """A logged-in student."""
    b = new_browser()
    assert b.signup().status_code == 303
    return b


@pytest.fixture
def admin(new_browser: Callable[[], Browser], db: Database) -> Browser:
    """A logged-in admin (premium by the current entitlement rule)."""
    email = f"admin-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="admin")
    b = new_browser()
    assert b.login(email).status_code == 303
    return b


@pytest.fixture(scope="session")
def code_of() -> Callable[..., str]:
    """Source of a fixture problem's file: ``code_of("add-tensors")``, ``code_of(slug, "mutants/x.py")``."""
    return lambda slug, name="solution.py": (BANK / slug / name).read_text()
