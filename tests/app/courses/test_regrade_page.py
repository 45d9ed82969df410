"""The regrade page says what it is (a dry run: nothing applied yet) and why each score would change:
the re-judged submission's old verdict → new verdict and the cases behind it; never lower explained."""

from __future__ import annotations

import html
import re
import uuid
from datetime import timedelta
from pathlib import Path

from sqlalchemy import update

from app.accounts.service import get_user_by_email
from app.courses.models import Regrade
from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.submissions.models import Submission
from tests.app.courses.test_regrades import ABS, RIGHT, _iso, _publish, _wait_ready


def _row(page: str, user_id: int) -> str:
    found = re.search(rf'<tr data-student="{user_id}">(.*?)</tr>', page, re.S)
    assert found, f"no row for student {user_id}"
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))))


def test_the_dry_run_explains_itself_and_each_change(
    make_account, new_browser, db: Database, runner: JudgeRunner, tmp_path: Path
) -> None:
    slug = f"why-{uuid.uuid4().hex[:8]}"
    _publish(db, runner, tmp_path, slug, ABS)
    teacher, absy, right = make_account("instructor"), make_account(), make_account()
    cid = teacher.post("/api/v1/courses", json={"title": "Why"}).json()["id"]
    code = teacher.get(f"/api/v1/courses/{cid}").json()["join_code"]
    for s in (absy, right):
        assert s.post("/api/v1/courses/join", json={"code": code}).status_code == 200
    now = utcnow()
    window = {"release_at": _iso(now - timedelta(hours=1)), "due_at": _iso(now + timedelta(days=1))}
    aid = teacher.post(
        f"/api/v1/courses/{cid}/assignments", json={"title": "A", "problems": [slug]} | window
    ).json()["id"]
    was_right = absy.submit(slug, ABS, wait="true").json()
    was_wrong = right.submit(slug, RIGHT, wait="true").json()
    assert was_right["verdict"] == "accepted" and was_wrong["verdict"] == "wrong_answer"
    _publish(db, runner, tmp_path, slug, RIGHT)  # v2: the reference was wrong; the verdicts swap

    base = f"/api/v1/courses/{cid}/assignments/{aid}/regrades"
    run = teacher.post(base, json={"problem": slug}).json()
    assert _wait_ready(teacher, f"{base}/{run['id']}")["status"] == "ready"
    web = new_browser()
    assert web.login(teacher.email).status_code == 303
    page = web.get(f"/courses/{cid}/assignments/{aid}/regrades/{run['id']}").text
    assert "Dry run: nothing has been applied yet." in page
    assert "the gradebook keeps the current scores until you press" in page

    with db.transaction() as session:
        ids = {b.email: get_user_by_email(session, b.email).id for b in (absy, right)}
    down, up = _row(page, ids[absy.email]), _row(page, ids[right.email])
    assert "100.0 → 0.0" in down and "(down)" in down
    assert f"Submission #{was_right['id']}" in down and "Accepted → Wrong Answer" in down
    assert "passed → failed" in down and "With “never lower”, this student keeps 100.0 %" in down
    assert "0.0 → 100.0" in up and "Wrong Answer → Accepted" in up and "failed → passed" in up
    assert "hidden" in down  # hidden cases named as learners see them, never by their values
    assert "never lower" in page.lower() and 'aria-describedby="never-lower-help"' in page

    here = f"/courses/{cid}/assignments/{aid}/regrades/{run['id']}"
    unknown = web.post(
        f"/courses/{cid}/assignments/{aid}/regrades",
        data={"csrf_token": web.csrf(here), "problem": "add-tensors"},
    )
    assert unknown.status_code == 422 and 'id="regrade-error"' in unknown.text  # its page, not an error page
    assert "is not a problem of this assignment" in html.unescape(unknown.text)

    with db.transaction() as session:  # the platform fails on one copy: applying is refused, on the page
        regrade = session.get(Regrade, run["id"])
        assert regrade is not None
        copy_id = regrade.copies[str(was_right["id"])]
        copy = session.get(Submission, copy_id)
        assert copy is not None
        kept = copy.verdict
        session.execute(update(Submission).where(Submission.id == copy_id).values(verdict="internal_error"))
    refused = web.post(f"{here}/apply", data={"csrf_token": web.csrf(here), "never_lower": "true"})
    assert (
        refused.status_code == 409 and 'id="apply-errors"' in refused.text and "need review" in refused.text
    )
    with db.transaction() as session:
        session.execute(update(Submission).where(Submission.id == copy_id).values(verdict=kept))

    done = web.post(f"{here}/apply", data={"csrf_token": web.csrf(here), "never_lower": "true"})
    assert done.status_code == 303
    applied = web.get(f"/courses/{cid}/assignments/{aid}/regrades/{run['id']}").text
    assert "Dry run" not in applied and "Applied: the scores below changed" in applied
    assert "Kept at 100.0 % by “never lower”." in _row(applied, ids[absy.email])
