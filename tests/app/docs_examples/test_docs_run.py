"""Docs that run: every marked example of the docs, run against the bank as shipped.

The shipped bank (``problems/``) is imported into a fresh database, the app is served by uvicorn
on 127.0.0.1, and each block marked ``<!-- runs -->`` in ``docs/*.md`` and ``README.md`` runs in
order, line by line, in one working folder: ``curl`` lines through the real curl (the status in
the ``# =>`` comment above must be the HTTP status), anything else through bash (the exit code;
``torchdrill`` is the real CLI). ``# => 200 NAME=.field`` keeps a field of the JSON answer in
``$NAME`` for the commands after it; a marked ``python`` block runs whole (with the variables in
its environment) and must exit 0. A block marked ``<!-- runs: env -->`` holds the variables this
test sets itself (its server, a fresh account). An unmarked block that talks to a server (``curl``,
``torchdrill``, ``/api/v1`` from Python) fails the test: an example nobody runs goes stale.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.kit.db import Database, upgrade_database
from app.kit.runner import JudgeRunner
from app.main import create_app
from app.problems.importer import import_bank
from tests.app.cli.conftest import serve_in_thread
from tests.app.conftest import PASSWORD, settings_for

ROOT = Path(__file__).resolve().parents[3]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
FENCE = re.compile(r"(?:<!-- (runs(?::[^>]*)?) -->\n)?```(\w*)\n(.*?)```", re.S)
MARK = re.compile(r"# => (\d+)((?: [A-Z_]+=\.[\w.]+)*)$")
TALKS_TO_A_SERVER = re.compile(
    r"^\s*(curl|torchdrill (login|problems$|tracks|pull|submit|run|report|course))|[\"']/api/v1/", re.M
)


@dataclass(frozen=True)
class Command:
    doc: str
    expected: int
    keeps: dict[str, str]  # variable -> JSON field path
    line: str


@dataclass(frozen=True)
class Block:
    doc: str
    marker: str | None  # "runs", "runs: env", "runs: needs=A B"; None when unmarked
    language: str
    text: str

    @property
    def needs(self) -> list[str]:
        found = re.search(r"needs=([A-Z_ ]+)", self.marker or "")
        return found.group(1).split() if found else []

    def commands(self) -> list[Command]:
        """The commands of a shell block, each with its expected status (a python block is one)."""
        if self.language == "python":
            return [Command(self.doc, 0, {}, self.text)]
        out, mark = [], None
        for raw in self.text.replace("\\\n", " ").splitlines():
            line = raw.strip()
            if not line:
                continue
            if found := MARK.match(line):
                keeps = dict(k.split("=", 1) for k in found.group(2).split())
                mark = (int(found.group(1)), keeps)
                continue
            if line.startswith("#"):
                continue
            assert mark is not None, f"{self.doc}: no '# => status' above: {line}"
            out.append(Command(self.doc, mark[0], mark[1], line))
            mark = None
        return out


def blocks() -> list[Block]:
    return [
        Block(doc.relative_to(ROOT).as_posix(), marker, language, text)
        for doc in DOCS
        for marker, language, text in FENCE.findall(doc.read_text())
    ]


def test_every_example_that_talks_to_a_server_is_marked_to_run() -> None:
    unmarked = [
        (b.doc, b.text.splitlines()[0])
        for b in blocks()
        if b.marker is None
        and b.language in ("sh", "bash", "python", "")
        and TALKS_TO_A_SERVER.search(b.text)
    ]
    assert unmarked == []
    assert (
        sum(
            len(b.commands())
            for b in blocks()
            if b.marker == "runs" or (b.marker or "").startswith("runs: needs")
        )
        >= 30
    )


@pytest.fixture(scope="module")
def shipped_server(tmp_path_factory: pytest.TempPathFactory, runner: JudgeRunner) -> Iterator[str]:
    """The bank as shipped, in a database of its own, served on 127.0.0.1."""
    from fastapi.testclient import TestClient

    url = f"sqlite:///{tmp_path_factory.mktemp('shipped') / 'torchdrill.db'}"
    upgrade_database(url)
    database = Database(url)
    with database.transaction() as session:
        first = import_bank(session, ROOT / "problems", runner)
    if not first.ok:  # a reference timed out on a loaded machine: the import is idempotent, try once more
        with database.transaction() as session:
            again = import_bank(session, ROOT / "problems", runner)
        assert again.ok, f"{first.summary()}\n{again.summary()}"
    app = create_app(settings_for(url), database=database, runner=runner)
    with TestClient(app):  # the lifespan: the judge's dispatcher
        address, server, thread = serve_in_thread(app)
        try:
            yield address
        finally:
            server.should_exit = True
            thread.join(timeout=10)
    database.dispose()


def field(body: object, path: str) -> str:
    value = body
    for part in path.strip(".").split("."):
        assert isinstance(value, dict), (path, body)
        value = value[part]
    return str(value)


def run(command: Command, env: dict[str, str], workdir: Path) -> tuple[int, str]:
    if command.line.startswith("curl "):
        body_file = workdir / "answer.json"
        line = f"{command.line} -o {body_file} -w '%{{http_code}}'"
        done = subprocess.run(
            ["bash", "-c", line], env=env, cwd=workdir, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, (command.line, done.stderr)
        return int(done.stdout.strip()), body_file.read_text() if body_file.exists() else ""
    done = subprocess.run(["bash", "-c", command.line], env=env, cwd=workdir, capture_output=True, text=True,
                          timeout=180)  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def test_every_marked_example_runs_against_the_shipped_bank(shipped_server: str, tmp_path: Path) -> None:
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "TORCHDRILL_CONFIG": str(tmp_path / "config.json"),
        "SERVER": shipped_server,
        "EMAIL": f"doc-{uuid.uuid4().hex[:8]}@example.com",
        "PASSWORD": PASSWORD,
    }
    ran = 0
    for block in blocks():
        if block.marker is None or not block.marker.startswith("runs"):
            continue
        if block.marker == "runs: env":
            names = {line.split("=", 1)[0] for line in block.text.splitlines() if "=" in line}
            assert names <= set(env), f"{block.doc}: the test does not set {names - set(env)}"
            continue
        missing = [name for name in block.needs if name not in env]
        assert not missing, f"{block.doc}: a block needs {missing}, which no earlier block set"
        if block.language == "python":
            done = subprocess.run(
                [sys.executable, "-c", block.text],
                env=env,
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=180,
            )
            assert done.returncode == 0, (block.doc, block.text[:80], done.stdout + done.stderr)
            ran += 1
            continue
        for command in block.commands():
            status, output = run(command, env, tmp_path)
            assert status == command.expected, (command.doc, command.line, output[-2000:])
            if command.keeps:
                answer = json.loads(output)
                for name, path in command.keeps.items():
                    env[name] = field(answer, path)
            ran += 1
    assert ran >= 30
