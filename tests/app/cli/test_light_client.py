"""The light client (clients/python), for real: installed into a fresh venv without network, its
``torchdrill`` against a real server on 127.0.0.1, and a notebook executed by a real kernel (in that
venv) that logs in, pulls, runs and submits.

The fresh venv installs from wheels packed from this venv's own installed distributions
(tests/app/cli/wheelhouse.py), so the test needs no network and no wheel files in the repository.
Each install's time and the venv's growth are printed (docs/benchmarks.md, "The light client").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from nbclient import NotebookClient
from torchdrill import version
from torchdrill.cli import app as client_cli
from typer.testing import CliRunner

from app.kit.db import Database
from tests.app.api_v1.conftest import create_account
from tests.app.cli.conftest import serve_in_thread
from tests.app.cli.wheelhouse import build_wheelhouse

ROOT = Path(__file__).resolve().parents[3]
CLIENT = ROOT / "clients" / "python"
CLIENT_NEEDS = ["httpx", "typer", "rich", "markdown-it-py", "setuptools"]  # setuptools: its build backend
KERNEL_NEEDS = ["ipykernel"]

pytestmark = pytest.mark.slow


@dataclass
class FreshVenv:
    path: Path
    wheels: Path
    install_s: float
    installed_bytes: int

    @property
    def bin(self) -> Path:
        return self.path / "bin"

    def pip(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "python"), "-m", "pip", *args], capture_output=True, text=True, env=offline_env()
        )


def offline_env() -> dict[str, str]:
    """No pip configuration (its extra indexes and find-links) and no index: only our wheels."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return env | {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.fixture(scope="session")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> FreshVenv:
    """A new venv with `pip install ./clients/python` (offline), then ipykernel for the notebook."""
    base = tmp_path_factory.mktemp("light-client")
    wheels = base / "wheels"
    build_wheelhouse(CLIENT_NEEDS + KERNEL_NEEDS, wheels)
    source = base / "client-source"  # a copy: the build writes egg-info and build/ next to its source
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=offline_env())
    site = next((venv / "lib").glob("python3*/site-packages"))
    before = size_of(site)
    fresh = FreshVenv(venv, wheels, 0.0, 0)
    started = time.monotonic()
    installed = fresh.pip("install", "--find-links", str(wheels), str(source))
    fresh.install_s = time.monotonic() - started
    assert installed.returncode == 0, installed.stdout + installed.stderr
    fresh.installed_bytes = size_of(site) - before
    print(f"\nlight client: pip install ./clients/python {fresh.install_s:.1f} s, "
          f"+{fresh.installed_bytes / 1e6:.1f} MB in site-packages")  # fmt: skip
    return fresh


def test_the_client_installs_in_seconds_without_torch_or_the_server(fresh_venv: FreshVenv) -> None:
    assert fresh_venv.install_s < 60, fresh_venv.install_s
    listed = fresh_venv.pip("list", "--format=json")
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "torchdrill-client" in names and "httpx" in names and "rich" in names
    assert not names & {"torch", "fastapi", "sqlalchemy", "celery", "uvicorn", "numpy", "torchdrill"}, names
    python = str(fresh_venv.bin / "python")
    probe = (
        "import importlib.util as u, torchdrill.cli\n"
        "print([u.find_spec(m) for m in ('torch', 'app', 'runner')])"
    )
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd="/", check=True)
    assert found.stdout.strip() == "[None, None, None]", found.stdout + found.stderr


@pytest.fixture
def sqlite_only(db: Database) -> None:
    if not db.url.startswith("sqlite"):
        pytest.skip("the client is the same on any database: run once, on SQLite")


def test_the_installed_cli_logs_in_pulls_and_submits(
    fresh_venv: FreshVenv, sqlite_only: None, live_server: str, db: Database, tmp_path: Path, code_of: Any
) -> None:
    _email, token = create_account(db)
    env = offline_env() | {"TORCHDRILL_CONFIG": str(tmp_path / "config.json")}

    def torchdrill(*args: str) -> subprocess.CompletedProcess[str]:
        command = [str(fresh_venv.bin / "torchdrill"), *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)

    assert torchdrill("login", "--server", live_server, "--token", token).returncode == 0
    pulled = torchdrill("pull", "add-tensors")
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "solution.py").read_text() == code_of("add-tensors", "starter.py")
    (tmp_path / "good.py").write_text(code_of("add-tensors"))
    (tmp_path / "bad.py").write_text(code_of("add-tensors", "mutants/subtracts.py"))
    good = torchdrill("submit", "add-tensors", "good.py")
    assert good.returncode == 0 and "ACCEPTED" in good.stdout and "3/3 passed" in good.stdout, good
    bad = torchdrill("submit", "add-tensors", "bad.py")
    assert bad.returncode == 1 and "WRONG ANSWER" in bad.stdout and "failed" in bad.stdout, bad
    hints = torchdrill("hints", "add-tensors", "--next")
    assert hints.returncode == 0 and "hint 1/2: Tensors of the same shape" in hints.stdout, hints
    assert "1 more: torchdrill hints add-tensors --next" in hints.stdout
    version = torchdrill("version")
    assert version.returncode == 0 and "torchdrill-client 0.1.0" in version.stdout, version


def _notebook(server: str, reference: str, mutant: str) -> nbformat.NotebookNode:
    cells = [
        "%load_ext torchdrill",
        f"%torchdrill login --server {server}",
        "%torchdrill pull add-tensors",
        f"%%torchdrill run add-tensors\n{reference}",
        f"%%torchdrill submit add-tensors\n{reference}",
        f"%%torchdrill submit add-tensors\n{mutant}",
        "%torchdrill hints add-tensors --next",
        "import importlib.util\nprint('torch:', importlib.util.find_spec('torch'))",
    ]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])


class RecordingClient(NotebookClient):
    """Keeps the display messages each cell sent (the executed notebook keeps only the last state)."""

    displays: dict[int, list[tuple[str, str]]]

    def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
        if msg["msg_type"] in ("display_data", "update_display_data"):
            html = msg["content"].get("data", {}).get("text/html", "")
            self.displays.setdefault(cell_index, []).append((msg["msg_type"], html))
        return super().process_message(msg, cell, cell_index)


def _html(cell: Any) -> str:
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)


@pytest.fixture
def kernel(fresh_venv: FreshVenv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A kernelspec for the fresh venv's Python (ipykernel installed there, offline)."""
    installed = fresh_venv.pip("install", "--find-links", str(fresh_venv.wheels), *KERNEL_NEEDS)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    prefix = tmp_path / "jupyter"
    subprocess.run(
        [str(fresh_venv.bin / "python"), "-m", "ipykernel", "install", "--prefix", str(prefix),
         "--name", "torchdrill-fresh"],
        check=True, capture_output=True, env=offline_env(),
    )  # fmt: skip
    monkeypatch.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
    yield "torchdrill-fresh"


def test_a_notebook_pulls_runs_and_submits(
    kernel: str,
    sqlite_only: None,
    live_server: str,
    db: Database,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    code_of: Any,
) -> None:
    email, token = create_account(db)
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "config.json"))
    monkeypatch.setenv("TORCHDRILL_TOKEN", token)  # the kernel inherits it: no prompt
    notebook = _notebook(live_server, code_of("add-tensors"), code_of("add-tensors", "mutants/subtracts.py"))
    replies: dict[int, Any] = {}
    client = RecordingClient(
        notebook,
        kernel_name=kernel,
        timeout=180,
        resources={"metadata": {"path": str(tmp_path)}},
        on_cell_executed=lambda cell, cell_index, execute_reply: replies.__setitem__(
            cell_index, execute_reply
        ),
    )
    client.displays = {}
    client.execute()
    cells = notebook.cells

    login = _html(cells[1])
    assert f"logged in to {live_server} as {email}" in login
    assert token not in json.dumps(notebook) and token[:12] not in json.dumps(notebook)  # nowhere shown
    assert json.loads((tmp_path / "config.json").read_text())["token"] == token  # kept like the CLI's

    statement = _html(cells[2])
    assert "<h3>Add Two Tensors</h3>" in statement and "<h2>Example</h2>" in statement
    assert (
        "<script>" not in statement and "&lt;script&gt;alert" in statement
    )  # the statement's markup is text
    assert 'onclick="steal()"' not in statement
    payloads = replies[2]["content"]["payload"]
    starter = [p["text"] for p in payloads if p.get("source") == "set_next_input"]
    assert starter == [f"%%torchdrill run add-tensors\n{code_of('add-tensors', 'starter.py')}"]

    for index, mode in ((3, "run"), (4, "submit")):
        assert len(cells[index].outputs) == 1  # the live status, updated in place into the result
        shown = client.displays[index]
        assert shown[0] == (
            "display_data",
            f'<p class="torchdrill-status">sending {mode} for add-tensors…</p>',
        )
        assert shown[-1][0] == "update_display_data" and shown[-1][1] == _html(cells[index])
        result = _html(cells[index])
        assert 'data-verdict="accepted"' in result and f" {mode}: " in result, result
        assert "<td>example</td><td>passed</td>" in result
    assert "submit: ACCEPTED  3/3 passed" in _html(cells[4])

    wrong = _html(cells[5])
    assert 'data-verdict="wrong_answer"' in wrong and "submit: WRONG ANSWER" in wrong, wrong
    assert "<td>example</td><td>failed</td>" in wrong
    assert "<b>expected</b><pre>" in wrong and "<b>yours</b><pre>" in wrong  # the public case's values

    assert "Tensors of the same shape add element by element." in _html(cells[6])
    assert cells[7].outputs[0]["text"] == "torch: None\n"  # the kernel runs without torch


def test_versions_are_checked_with_a_clear_message(
    live_server: str, db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: FastAPI
) -> None:
    answer = TestClient(app).get("/api/v1/version", headers={"Torchdrill-Client": "0.1.0"}).json()
    assert answer == {"api": "v1", "revision": 1, "oldest_client": "0.1.0", "client": "0.1.0"}
    _email, token = create_account(db)
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "config.json"))
    run = CliRunner()
    assert run.invoke(client_cli, ["login", "--server", live_server, "--token", token]).exit_code == 0

    monkeypatch.setattr(version, "MIN_API_REVISION", 2)  # a client that needs a later server
    older = run.invoke(client_cli, ["tracks"])
    assert older.exit_code == 2 and "is older than torchdrill-client" in older.output, older.output
    assert "revision 1" in older.output

    monkeypatch.setattr(version, "MIN_API_REVISION", 1)
    monkeypatch.setattr(version, "__version__", "0.0.9")  # a client the server no longer serves
    newer = run.invoke(client_cli, ["tracks"])
    assert newer.exit_code == 2 and "is newer than torchdrill-client 0.0.9" in newer.output
    assert "pip install --upgrade torchdrill-client" in newer.output

    monkeypatch.setattr(version, "__version__", "0.1.0")
    url, server, thread = serve_in_thread(FastAPI())  # a server from before /api/v1/version
    try:
        old = run.invoke(client_cli, ["login", "--server", url, "--token", token])
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    assert old.exit_code == 2 and f"the server at {url} is older than torchdrill-client 0.1.0" in old.output
    assert "does not answer /api/v1/version" in old.output


def test_custom_input_as_text_is_read_by_the_server(app: FastAPI, db: Database) -> None:
    _email, token = create_account(db)
    api = TestClient(app)
    auth = {"Authorization": f"Bearer {token}"}
    body = {"problem": "add-tensors", "code": "def add(a, b):\n    return a + b\n", "mode": "custom"}
    text = "{'a': {'tensor': [2.0, 3.0]}, 'b': {'tensor': [4.0, 5.0]}}"
    made = api.post("/api/v1/submissions", json=body | {"input_text": text}, headers=auth)
    assert made.status_code == 202, made.text
    assert made.json()["input"]["a"] == {"tensor": [2.0, 3.0], "dtype": "float32"}
    ragged = api.post(
        "/api/v1/submissions", json=body | {"input_text": '{"a": {"tensor": [[1], [2, 3]]}}'}, headers=auth
    )
    assert ragged.status_code == 422 and "same shape" in ragged.json()["detail"]
    code = "__import__('os').system('true')"  # text is read as data, never run
    assert api.post("/api/v1/submissions", json=body | {"input_text": code}, headers=auth).status_code == 422
    both = api.post("/api/v1/submissions", json=body | {"input_text": text, "input": {"a": 1}}, headers=auth)
    assert both.status_code == 422 and "not both" in both.text
