"""Every process that records verdicts keeps course analytics: the app factory (web and embedded
judging), the scale-out recorder and ``torchdrill submissions rejudge`` install the listener.

Checked in fresh processes: in this one the test app installed it already, so only a new
interpreter can show that an entry point does it on its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.analytics import state
from app.kit.db import Database
from tests.app.analytics.classroom import make_class, wrong

ROOT = Path(__file__).resolve().parents[3]


def _python(code: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=os.environ | (env or {}), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_fresh_process_has_no_listener_until_an_entry_point_installs_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    before = "from app.submissions import verdict_listeners as v; print(v.installed(), v.copy_prefixes())"
    assert _python(before) == "[] []"  # so the checks below can fail
    recorder = (
        "from app.kit.db import Database; from app.kit.settings import Settings;"
        "from app.scaleout.recorder import create_recorder;"
        "from app.submissions import verdict_listeners as v;"
        f"create_recorder(Settings(env='development', database_url='{url}', broker_url='redis://127.0.0.1:6379/15'),"
        f" Database('{url}')); print(v.installed(), len(v.copy_prefixes()))"
    )
    assert _python(recorder) == "['course-analytics'] 1"  # and the reports' outcome mail
    factory = (
        "from app.kit.settings import Settings; from app.main import create_app;"
        "from app.submissions import verdict_listeners as v;"
        f"create_app(Settings(env='development', database_url='{url}'));"
        "print(v.installed(), len(v.copy_prefixes()))"
    )
    assert _python(factory) == "['course-analytics'] 1"


def test_torchdrill_rejudge_keeps_the_analytics_in_step(db: Database) -> None:
    room = make_class(db, students=1)
    (student,) = room.students
    submission_id = room.solve(student, "add-tensors", 3, wrong(("broadcast", "values")))
    cli = Path(sys.executable).with_name("torchdrill")
    done = subprocess.run(
        [str(cli), "submissions", "rejudge", str(submission_id)], cwd=ROOT, capture_output=True, text=True,
        env=os.environ | {"TORCHDRILL_DATABASE_URL": db.url, "TORCHDRILL_BROKER_URL": ""}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert f"#{submission_id}: wrong_answer ->" in done.stdout
    with db.transaction() as session:
        assert state.compare(session).in_step
