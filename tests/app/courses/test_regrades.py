"""Regrades end to end through the API and the real judge: dry run, apply, never lower, idempotence.

A problem is imported as v1 with a wrong reference (it adds absolute values), students submit
against it, then v2 fixes the reference. Re-judging on v2 must move exactly the students whose
verdict flips, and applying must change exactly what the dry run listed.
"""

from __future__ import annotations

import logging
import shutil
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.courses import gradebook, repository
from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.problems.importer import import_bank
from app.submissions import service as submissions
from tests.app.conftest import BANK

RIGHT = "import torch\n\n\ndef add(a, b):\n    return a + b\n"
ABS = "import torch\n\n\ndef add(a, b):\n    return a.abs() + b.abs()\n"
WRONG = "import torch\n\n\ndef add(a, b):\n    return a - b\n"


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat()


def _publish(db: Database, runner: JudgeRunner, bank: Path, slug: str, solution: str) -> None:
    """Import (or re-import as version N+1) a copy of add-tensors whose reference is ``solution``."""
    folder = bank / slug
    if not folder.exists():
        shutil.copytree(BANK / "add-tensors", folder, ignore=shutil.ignore_patterns("mutants"))
    (folder / "solution.py").write_text(solution)
    with db.transaction() as session:
        report = import_bank(session, bank, runner)
    assert report.ok, report.summary()


def _wait_ready(teacher: Any, url: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        body: dict[str, Any] = teacher.get(url).json()
        if body["status"] != "judging":
            return body
        assert time.monotonic() < deadline, f"regrade still judging: {body}"
        time.sleep(0.1)


def _scores(teacher: Any, cid: int) -> dict[tuple[str, str], float]:
    book = teacher.get(f"/api/v1/courses/{cid}/gradebook").json()
    return {(s["email"], aid): v for s in book["students"] for aid, v in s["scores"].items()}


def _recomputed(db: Database, cid: int) -> dict[tuple[str, str], float]:
    with db.transaction() as session:
        course = repository.get_course(session, cid)
        assert course is not None
        book = gradebook.build(session, course)
        return {
            (r.email, str(a.id)): v
            for r in book.rows
            for a, v in zip(book.assignments, r.scores, strict=True)
        }


def test_regrade_dry_run_then_apply(
    make_account, db: Database, runner: JudgeRunner, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="app.courses.regrades")
    slug = f"regrade-{uuid.uuid4().hex[:8]}"
    _publish(db, runner, tmp_path, slug, ABS)  # v1: the reference is wrong on negative values
    teacher, outsider = make_account("instructor"), make_account()
    right, absy, wrong, later = make_account(), make_account(), make_account(), make_account()
    cid = teacher.post("/api/v1/courses", json={"title": "Regrades"}).json()["id"]
    code = teacher.get(f"/api/v1/courses/{cid}").json()["join_code"]
    for s in (right, absy, wrong, later):
        assert s.post("/api/v1/courses/join", json={"code": code}).status_code == 200
    now = utcnow()
    week = {
        "problems": [slug],
        "release_at": _iso(now - timedelta(hours=1)),
        "due_at": _iso(now + timedelta(days=1)),
    }
    a1 = teacher.post(f"/api/v1/courses/{cid}/assignments", json={"title": "A1"} | week).json()["id"]
    a2 = teacher.post(f"/api/v1/courses/{cid}/assignments", json={"title": "A2"} | week).json()["id"]

    verdicts = {}
    for who, source in ((right, RIGHT), (absy, ABS), (wrong, WRONG)):
        done = who.submit(slug, source, wait="true")
        assert done.status_code == 200, done.text
        verdicts[who.email] = done.json()
    assert [verdicts[s.email]["verdict"] for s in (right, absy, wrong)] == [
        "wrong_answer",
        "accepted",
        "wrong_answer",
    ]
    _publish(db, runner, tmp_path, slug, RIGHT)  # v2: the reference is fixed
    assert later.submit(slug, RIGHT, wait="true").json()["verdict"] == "accepted"  # already on v2
    before = _scores(teacher, cid)
    assert before[(absy.email, str(a1))] == 100.0 and before[(right.email, str(a1))] == 0.0

    base = f"/api/v1/courses/{cid}/assignments/{a1}/regrades"
    for stranger in (outsider, right):  # the instructor routes are 404 to students and outsiders
        refused = stranger.post(base, json={"problem": slug})
        assert refused.status_code == 404 and set(refused.json()) == {"error", "detail"}
    assert teacher.post(base, json={"problem": "add-tensors"}).status_code == 422  # not in A1
    started = teacher.post(base, json={"problem": slug})
    assert started.status_code == 201, started.text
    run = started.json()
    assert run["total"] == 3 and run["version"] == 2  # the three v1 submissions, not `later`'s
    again = teacher.post(base, json={"problem": slug})
    assert again.status_code == 200 and again.json()["id"] == run["id"] and again.json()["total"] == 3
    url = f"{base}/{run['id']}"
    assert right.get(url).status_code == 404 and outsider.get(url).status_code == 404

    ready = _wait_ready(teacher, url)
    assert ready["status"] == "ready" and ready["judged"] == 3 and ready["failed"] == 0
    dry = {c["email"]: (c["old"], c["new"]) for c in ready["changes"]}
    assert dry == {right.email: (0.0, 100.0), absy.email: (100.0, 0.0)}
    assert _scores(teacher, cid) == before  # a dry run changes nothing

    # the copies are not the learners': their own submissions and verdicts are untouched
    mine = absy.get("/api/v1/submissions").json()["items"]
    assert [(s["id"], s["verdict"]) for s in mine] == [(verdicts[absy.email]["id"], "accepted")]
    assert absy.post(f"{url}/apply", json={"never_lower": True}).status_code == 404

    applied = teacher.post(f"{url}/apply", json={"never_lower": True})
    assert applied.status_code == 200 and applied.json()["status"] == "applied"
    kept = {c["email"]: c["kept"] for c in applied.json()["changes"]}
    assert kept == {right.email: False, absy.email: True}
    after = _scores(teacher, cid)
    assert after[(right.email, str(a1))] == 100.0
    assert after[(absy.email, str(a1))] == 100.0  # never lower keeps the higher score
    assert {k for k in after if after[k] != before[k]} == {(right.email, str(a1))}
    assert after == _recomputed(db, cid)

    with db.transaction() as session:  # the accepted copy is not the learner's: no solved mark, no history
        learner = repository.get_user_by_email(session, right.email)
        assert learner is not None
        assert submissions.solved_problem_ids(session, learner) == set()
    assert [s["verdict"] for s in right.get("/api/v1/submissions").json()["items"]] == ["wrong_answer"]

    logged = [r.getMessage() for r in caplog.records if r.name == "app.courses.regrades"]
    assert any(f"regrade {run['id']} started by user" in m and "(v2)" in m for m in logged), logged
    assert any(f"regrade {run['id']} applied by user" in m and "never_lower=True" in m for m in logged), (
        logged
    )

    twice = teacher.post(f"{url}/apply", json={"never_lower": False})  # idempotent
    assert twice.status_code == 200 and twice.json()["never_lower"] is True
    assert _scores(teacher, cid) == after

    # the same problem in A2, applied without "never lower": exactly the dry run's changes
    base2 = f"/api/v1/courses/{cid}/assignments/{a2}/regrades"
    run2 = teacher.post(base2, json={"problem": slug}).json()
    ready2 = _wait_ready(teacher, f"{base2}/{run2['id']}")
    listed = {(c["email"], str(a2)): c["assignment_new"] for c in ready2["changes"]}
    assert listed == {(right.email, str(a2)): 100.0, (absy.email, str(a2)): 0.0}
    teacher.post(f"{base2}/{run2['id']}/apply", json={"never_lower": False})
    final = _scores(teacher, cid)
    assert {k: v for k, v in final.items() if v != after[k]} == listed
    assert final == _recomputed(db, cid)


def test_regrade_routes_are_in_the_openapi_schema(make_account) -> None:
    paths = make_account().get("/api/v1/openapi.json").json()["paths"]
    base = "/api/v1/courses/{course_id}/assignments/{assignment_id}/regrades"
    assert "post" in paths[base]
    assert "get" in paths[base + "/{regrade_id}"]
    assert "post" in paths[base + "/{regrade_id}/apply"]
