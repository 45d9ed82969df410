"""Helpers of the scale-out tests: a private redis-server, worker processes, learners over HTTP.

Runner workers get an environment with the broker URL and nothing else of ours: no database URL,
no secret.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import redis
from sqlalchemy import create_engine, text

from runner.transport.heartbeat_files import default_file

REPO = Path(__file__).resolve().parents[2]
BANK = REPO / "tests" / "app" / "fixtures" / "bank"
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SECRET = "scale-test-secret-" + "s" * 40
PASSWORD = "correct horse battery"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(Exception):
            value = check()
            if value:
                return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


class RedisServer:
    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.dir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=5)

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        wait_for(lambda: self.client().ping(), 10, "redis-server to answer")

    def stop(self, lose_data: bool = False) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None
        if lose_data:
            for path in self.dir.iterdir():
                if path.name.startswith("appendonly") or path.suffix == ".rdb":
                    shutil.rmtree(path) if path.is_dir() else path.unlink()


class Proc:
    def __init__(self, name: str, popen: subprocess.Popen[bytes], log: Path) -> None:
        self.name = name
        self.popen = popen
        self.log = log
        self.heartbeat: Path | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self, sig: int = signal.SIGKILL, group: bool = False) -> None:
        """Signal the process (or its whole group: sandboxes included); wait when it is SIGKILL."""
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(self.popen.pid, sig)
            else:
                os.kill(self.popen.pid, sig)
        if sig == signal.SIGKILL:
            self.popen.wait(timeout=15)


class Stack:
    """Processes of one test; every one is killed (with its process group) at the end."""

    def __init__(self, redis_server: RedisServer, db_url: str, workdir: Path) -> None:
        self.redis_server = redis_server
        self.db_url = db_url
        self.workdir = workdir
        self.procs: list[Proc] = []
        self.settings_env: dict[str, str] = {
            "TORCHDRILL_ENV": "development",
            "TORCHDRILL_DATABASE_URL": db_url,
            "TORCHDRILL_BROKER_URL": redis_server.url(),
            "TORCHDRILL_SECRET_KEY": SECRET,
            "TORCHDRILL_LOG_FORMAT": "json",
            "TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S": "30",
            "TORCHDRILL_REQUEUE_AFTER_S": "60",
            "TORCHDRILL_STUCK_AFTER_S": "120",
            "TORCHDRILL_SWEEP_INTERVAL_S": "1",
            "TORCHDRILL_API_SUBMISSIONS_PER_MINUTE": "100000",
            "TORCHDRILL_API_REQUESTS_PER_MINUTE": "100000",
        }

    def _base_env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/root"),
            "PYTHONPATH": str(REPO),
            "PYTHONUNBUFFERED": "1",
            "LANG": "C.UTF-8",
        }

    def settings(self, **overrides: Any) -> Any:
        """The Settings a process of this stack sees (for code the test runs in-process)."""
        from app.kit.settings import Settings

        env = {k.removeprefix("TORCHDRILL_").lower(): v for k, v in self.settings_env.items()}
        return Settings(**(env | overrides))

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> Proc:
        log = self.workdir / f"{name}.log"
        popen = subprocess.Popen(
            [sys.executable, *args],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def runner_env(self, **extra: str) -> dict[str, str]:
        env = self._base_env() | {
            "TORCHDRILL_BROKER_URL": self.settings_env["TORCHDRILL_BROKER_URL"],
            "TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S": self.settings_env[
                "TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S"
            ],
            "TORCHDRILL_LOG_FORMAT": "json",
        }
        return env | extra

    def start_runner(self, name: str, slots: int = 2, wait: bool = True, **extra: str) -> Proc:
        heartbeat = self.workdir / f"{name}.heartbeat"
        heartbeat.unlink(missing_ok=True)
        own = {
            "TORCHDRILL_RUNNER_SLOTS": str(slots),
            "TORCHDRILL_HEARTBEAT_FILE": str(heartbeat),
            "TORCHDRILL_WORKER_NAME": f"{name}@scale-test",
        }
        env = self.runner_env(**(own | extra))
        proc = self._spawn(name, ["-m", "runner.transport.celery_worker"], env)
        # TORCHDRILL_HEARTBEAT_FILE="": the worker's default, a file of its own process.
        proc.heartbeat = heartbeat if env["TORCHDRILL_HEARTBEAT_FILE"] else default_file("runner", proc.pid)
        if wait:
            self.wait_runner(proc)
        return proc

    def wait_runner(self, proc: Proc) -> None:
        """Until the worker's first heartbeat: its sandbox is warm and it consumes the queue."""
        assert proc.heartbeat is not None
        heartbeat = proc.heartbeat
        wait_for(lambda: heartbeat.exists() or not proc.alive(), 90, f"{proc.name} to be ready")
        assert proc.alive(), proc.output()[-3000:]

    def start_recorder(self, **extra: str) -> Proc:
        env = self._base_env() | self.settings_env | extra
        proc = self._spawn("recorder", ["-m", "app.scaleout.recorder"], env)
        wait_for(lambda: "recorder ready" in proc.output() or not proc.alive(), 60, "the recorder")
        assert proc.alive(), proc.output()[-3000:]
        return proc

    def start_web(self, port: int | None = None, **extra: str) -> tuple[Proc, str]:
        port = port or free_port()
        env = self._base_env() | self.settings_env | {"TORCHDRILL_PORT": str(port)} | extra
        proc = self._spawn(f"web-{port}", ["-m", "app"], env)
        base = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            if not proc.alive():
                return True
            return httpx.get(f"{base}/healthz", timeout=2).status_code == 200

        wait_for(healthy, 60, "the web app")
        assert proc.alive(), proc.output()[-3000:]
        return proc, base

    def close(self) -> None:
        for proc in self.procs:
            proc.kill(signal.SIGKILL, group=True)
            with contextlib.suppress(Exception):
                proc.popen.wait(timeout=15)

    def logs(self) -> str:
        return "\n".join(f"===== {p.name}\n{p.output()[-4000:]}" for p in self.procs)


def clear_database(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        for table in ("submissions", "learner_problems", "problem_stats", "users"):
            conn.execute(text(f"DELETE FROM {table}"))
    engine.dispose()


# --- helpers the tests share ---------------------------------------------------------------------


def code_of(slug: str, name: str = "solution.py") -> str:
    return (BANK / slug / name).read_text()


def rows(
    db_url: str, sql: str = "SELECT id, status, verdict, message FROM submissions ORDER BY id"
) -> list[Any]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        result = list(conn.execute(text(sql)))
    engine.dispose()
    return result


def make_user(db_url: str, email: str | None = None) -> int:
    from app.accounts.service import sign_up
    from app.kit.db import Database

    db = Database(db_url)
    with db.transaction() as session:
        user = sign_up(session, email or f"scale-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)
        user_id = int(user.id)
    db.dispose()
    return user_id


def insert_submission(db_url: str, user_id: int, slug: str, code: str, mode: str = "submit") -> int:
    """A queued submission as the web stores it (the commit; the publish is the caller's business)."""
    from app.kit.db import Database, utcnow
    from app.problems import repository as problems_repository
    from app.submissions.models import Submission

    db = Database(db_url)
    with db.transaction() as session:
        problem = problems_repository.get_by_slug(session, slug)
        assert problem is not None and problem.current_version_id is not None
        submission = Submission(
            user_id=user_id,
            problem_id=problem.id,
            problem_version_id=problem.current_version_id,
            mode=mode,
            code=code,
            status="queued",
            created_at=utcnow(),
        )
        session.add(submission)
        session.flush()
        submission_id = int(submission.id)
    db.dispose()
    return submission_id


def wait_finished(db_url: str, ids: list[int], timeout: float) -> dict[int, Any]:
    wanted = ",".join(str(i) for i in ids)

    def finished() -> dict[int, Any] | None:
        got = rows(db_url, f"SELECT id, status, verdict, message FROM submissions WHERE id IN ({wanted})")
        return (
            {r.id: r for r in got}
            if all(r.status == "finished" for r in got) and len(got) == len(ids)
            else None
        )

    result: dict[int, Any] = wait_for(finished, timeout, f"{len(ids)} verdicts", every=0.2)
    return result


class WebClient:
    """A learner's browser session against a live web process (cookie + CSRF, like the page JS)."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=30, follow_redirects=False)

    def csrf(self, page: str) -> str:
        match = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.client.get(page).text)
        assert match, f"{page} has no CSRF token"
        return match.group(1)

    def signup(self) -> None:
        email = f"web-{uuid.uuid4().hex[:10]}@example.com"
        response = self.client.post(
            "/signup", data={"email": email, "password": PASSWORD, "csrf_token": self.csrf("/signup")}
        )
        assert response.status_code == 303, response.text[:500]
        self.token = self.csrf("/problems")

    def submit(self, slug: str, code: str, mode: str = "submit") -> int:
        response = self.client.post(
            f"/api/problems/{slug}/submissions",
            json={"code": code, "mode": mode},
            headers={"X-CSRF-Token": self.token},
        )
        assert response.status_code == 202, response.text[:500]
        return int(response.json()["id"])

    def verdict(self, submission_id: int, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            body: dict[str, Any] = self.client.get(
                f"/api/submissions/{submission_id}", params={"wait": "true", "timeout": 20}
            ).json()
            if body.get("status") == "finished" or time.monotonic() > deadline:
                return body

    def close(self) -> None:
        self.client.close()


def json_lines(text_: str) -> list[dict[str, Any]]:
    out = []
    for line in text_.splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict):
                out.append(entry)
    return out
