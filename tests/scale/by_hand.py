"""The deployment of docs/deploy.md's "Without containers", started from the docs themselves.

:func:`units` reads the systemd units and environment files out of docs/deploy.md; a
:class:`ByHand` runs their ``ExecStart`` commands with their environment on 127.0.0.1, with only
what cannot be the same substituted: the install directory (this checkout), the passwords, the
ports, the database (a scratch PostgreSQL database) and the Redis database (a database of its own
on the tests' redis-server, so the deployment's names carry its number). Used by
``tests/scale/test_by_hand.py`` and by ``bench.scale_faults``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.scale.stack import BANK, REPO, SECRET, Proc, free_port, wait_for

DOC = REPO / "docs" / "deploy.md"
INSTALL = "/opt/torchdrill"
METRICS_TOKEN = "by-hand-metrics-token-" + "m" * 16
HOST = "by-hand"


@dataclass
class Unit:
    name: str
    exec_start: list[str]
    environment_files: list[str]
    environment: dict[str, str]


def _blocks(text_: str) -> dict[str, str]:
    """Fenced blocks of the "Without containers" section whose first line names a file."""
    section = text_.split("## Without containers", 1)[1].split("\n## ", 1)[0]
    found = {}
    for block in re.findall(r"```[a-z]*\n(.*?)```", section, re.S):
        first = block.splitlines()[0]
        if first.startswith("# /"):
            found[first[2:].split()[0]] = block
    return found


def units(doc: Path = DOC) -> tuple[dict[str, Unit], dict[str, dict[str, str]]]:
    """The units (by file name) and the environment files (path -> variables) the docs give."""
    blocks = _blocks(doc.read_text())
    found: dict[str, Unit] = {}
    env_files: dict[str, dict[str, str]] = {}
    for path, block in blocks.items():
        lines = [line.strip() for line in block.splitlines()[1:]]
        if path.endswith(".service"):
            unit = Unit(Path(path).name, [], [], {})
            for line in lines:
                key, _, value = line.partition("=")
                if key == "ExecStart":
                    unit.exec_start.append(value)
                elif key == "EnvironmentFile":
                    unit.environment_files.append(value)
                elif key == "Environment":
                    name, _, val = value.partition("=")
                    unit.environment[name] = val
            found[unit.name] = unit
        elif path.endswith(".env"):
            env_files[path] = dict(
                line.split("=", 1) for line in lines if line and not line.startswith("#") and "=" in line
            )
    return found, env_files


@dataclass
class ByHand:
    """One deployment on 127.0.0.1 as the docs' units describe it."""

    pg_base: str
    redis_port: int
    redis_db: int
    workdir: Path
    port: int = field(default_factory=free_port)
    procs: list[Proc] = field(default_factory=list)
    extra_env: dict[str, str] = field(default_factory=dict)  # beyond the docs' (bench: no API limit)

    def __post_init__(self) -> None:
        self.units, self.env_files = units()
        self.db_name = f"torchdrill_byhand_{uuid.uuid4().hex[:8]}"
        self.db_url = make_url(self.pg_base).set(database=self.db_name).render_as_string(hide_password=False)
        self.broker_url = f"redis://127.0.0.1:{self.redis_port}/{self.redis_db}"
        self.base = f"http://127.0.0.1:{self.port}"

    # --- the docs' commands and environment, with what must differ substituted ---------------------
    def _substitute(self, value: str, instance: str = "") -> str:
        value = value.replace(f"{INSTALL}/problems", str(BANK)).replace(INSTALL, str(REPO))
        return value.replace("%i", instance).replace("%H", HOST)

    def _env_value(self, name: str, value: str) -> str:
        replaced = {
            "TORCHDRILL_DATABASE_URL": self.db_url,
            "TORCHDRILL_BROKER_URL": self.broker_url,
            "TORCHDRILL_SECRET_KEY": SECRET,
            "TORCHDRILL_METRICS_TOKEN": METRICS_TOKEN,
            "TORCHDRILL_PUBLIC_URL": self.base,
            "TORCHDRILL_PORT": str(self.port),
        }
        return replaced.get(name, self._substitute(value))

    def env(self, unit: Unit, instance: str = "") -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
        }
        for path in unit.environment_files:
            env |= {k: self._env_value(k, v) for k, v in self.env_files[path].items()}
        env |= {k: self._env_value(k, self._substitute(v, instance)) for k, v in unit.environment.items()}
        return env | self.extra_env

    def command(self, unit: Unit, index: int = 0, instance: str = "") -> list[str]:
        return [self._substitute(part, instance) for part in shlex.split(unit.exec_start[index])]

    # --- the processes -----------------------------------------------------------------------------
    def create_database(self) -> None:
        admin = create_engine(self.pg_base, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{self.db_name}"'))
        admin.dispose()

    def migrate(self) -> None:
        """``torchdrill-migrate.service``: from a directory that is not the checkout."""
        unit = self.units["torchdrill-migrate.service"]
        elsewhere = self.workdir / "elsewhere"
        elsewhere.mkdir(exist_ok=True)
        for index in range(len(unit.exec_start)):
            done = subprocess.run(
                self.command(unit, index), cwd=elsewhere, env=self.env(unit), capture_output=True, timeout=600
            )
            assert done.returncode == 0, (unit.exec_start[index], done.stdout[-2000:], done.stderr[-4000:])

    def start(self, unit_name: str, instance: str = "") -> Proc:
        unit = self.units[unit_name]
        name = unit_name.removesuffix(".service").replace("@", f"@{instance}")
        log = self.workdir / f"{name}.log"
        popen = subprocess.Popen(
            self.command(unit, 0, instance),
            cwd=self._substitute("/opt/torchdrill"),
            env=self.env(unit, instance),
            stdin=subprocess.DEVNULL,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def start_web(self) -> Proc:
        proc = self.start("torchdrill-web.service")

        def healthy() -> bool:
            return not proc.alive() or httpx.get(f"{self.base}/healthz", timeout=2).status_code == 200

        wait_for(healthy, 90, "the web app")
        assert proc.alive(), proc.output()[-3000:]
        return proc

    def start_recorder(self) -> Proc:
        proc = self.start("torchdrill-recorder.service")
        wait_for(lambda: "recorder ready" in proc.output() or not proc.alive(), 90, "the recorder")
        assert proc.alive(), proc.output()[-3000:]
        return proc

    def start_runner(self, instance: str) -> Proc:
        return self.start("torchdrill-runner@.service", instance)

    def wait_runner(self, proc: Proc) -> None:
        beat = Path(f"/tmp/torchdrill-runner-{proc.pid}.heartbeat")  # the per-process default
        wait_for(lambda: beat.exists() or not proc.alive(), 120, f"{proc.name} to be ready")
        assert proc.alive(), proc.output()[-3000:]

    def worker_name(self, instance: str) -> str:
        env = self.env(self.units["torchdrill-runner@.service"], instance)
        return env["TORCHDRILL_WORKER_NAME"]

    def close(self) -> None:
        for proc in self.procs:
            proc.kill(signal.SIGKILL, group=True)
            with contextlib.suppress(Exception):
                proc.popen.wait(timeout=15)
        admin = create_engine(self.pg_base, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)'))
        admin.dispose()

    def logs(self) -> str:
        return "\n".join(f"===== {p.name}\n{p.output()[-4000:]}" for p in self.procs)

    # --- what the deployment holds -----------------------------------------------------------------
    def redis(self) -> redis.Redis:
        return redis.Redis(port=self.redis_port, db=self.redis_db, socket_timeout=5)

    @property
    def namespace(self) -> str:
        return f"torchdrill-db{self.redis_db}"

    def held(self, owner: str) -> list[int]:
        """Submission ids of the judge jobs ``owner`` holds unacknowledged (its own set)."""
        ids = []
        for raw in self.redis().hvals(f"{self.namespace}:unacked:{owner}"):
            message = json.loads(raw)[0]
            _args, kwargs, _embed = json.loads(base64.b64decode(message["body"]))
            if "submission_id" in kwargs:
                ids.append(int(kwargs["submission_id"]))
        return ids

    def api_token(self) -> str:
        from app.accounts import tokens
        from app.accounts.service import sign_up
        from app.kit.db import Database, utcnow

        db = Database(self.db_url)
        with db.transaction() as session:
            user = sign_up(session, f"by-hand-{uuid.uuid4().hex[:8]}@example.com", "correct horse battery")
            _row, plain = tokens.create_token(session, user, "by-hand", utcnow())
        db.dispose()
        return plain

    def finished(self, ids: list[int]) -> dict[int, Any]:
        engine = create_engine(self.db_url)
        with engine.connect() as conn:
            got = list(
                conn.execute(
                    text("SELECT id, status, verdict, finished_at FROM submissions WHERE id = ANY(:ids)"),
                    {"ids": ids},
                )
            )
        engine.dispose()
        return {r.id: r for r in got if r.status == "finished"}


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def wait_verdicts(deployment: ByHand, ids: list[int], timeout: float) -> dict[int, float]:
    """Submission id -> the monotonic time its verdict was seen (polled every 50 ms)."""
    seen: dict[int, float] = {}
    deadline = time.monotonic() + timeout
    while len(seen) < len(ids):
        now = time.monotonic()
        for sid in deployment.finished([i for i in ids if i not in seen]):
            seen[sid] = now
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(ids) - len(seen)} of {len(ids)} verdicts missing after {timeout:g} s")
        time.sleep(0.05)
    return seen
