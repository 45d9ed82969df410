"""A regrade copy that ends in internal_error is flagged for review and blocks applying the run:
the student's old verdict is never kept silently because the judge failed on the new version."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

from sqlalchemy import update

from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.submissions.models import Submission
from tests.app.courses.test_regrades import ABS, RIGHT, _iso, _publish, _wait_ready


def test_a_copy_that_failed_on_the_platform_is_flagged_and_blocks_apply(
    make_account, new_browser, db: Database, runner: JudgeRunner, tmp_path: Path
) -> None:
    slug = f"review-{uuid.uuid4().hex[:8]}"
    _publish(db, runner, tmp_path, slug, ABS)
    teacher, absy, right = make_account("instructor"), make_account(), make_account()
    cid = teacher.post("/api/v1/courses", json={"title": "Review"}).json()["id"]
    code = teacher.get(f"/api/v1/courses/{cid}").json()["join_code"]
    for s in (absy, right):
        assert s.post("/api/v1/courses/join", json={"code": code}).status_code == 200
    now = utcnow()
    window = {"release_at": _iso(now - timedelta(hours=1)), "due_at": _iso(now + timedelta(days=1))}
    assignment = {"title": "A", "problems": [slug]} | window
    aid = teacher.post(f"/api/v1/courses/{cid}/assignments", json=assignment).json()["id"]
    original = absy.submit(slug, ABS, wait="true").json()
    assert original["verdict"] == "accepted"
    assert right.submit(slug, RIGHT, wait="true").json()["verdict"] == "wrong_answer"
    _publish(db, runner, tmp_path, slug, RIGHT)  # v2: absy's code is now wrong

    base = f"/api/v1/courses/{cid}/assignments/{aid}/regrades"
    run = teacher.post(base, json={"problem": slug}).json()
    url = f"{base}/{run['id']}"
    ready = _wait_ready(teacher, url)
    assert ready["failed"] == 0 and ready["review"] == []  # precondition: the copies were judged
    copy_id = next(c for o, c in _copies(db, run["id"]).items() if o == str(original["id"]))

    with db.transaction() as session:  # the platform fails on absy's copy, as the recorder stores it
        session.execute(
            update(Submission)
            .where(Submission.id == copy_id)
            .values(verdict="internal_error", message="The judge failed (not your fault).")
        )
    flagged = teacher.get(url).json()
    assert flagged["failed"] == 1
    assert flagged["review"] == [{"submission_id": original["id"], "copy_id": copy_id}]
    browser = new_browser()
    assert browser.login(teacher.email).status_code == 303
    page = browser.get(f"/courses/{cid}/assignments/{aid}/regrades/{run['id']}")
    assert page.status_code == 200
    assert "1 need review" in page.text and f"#{original['id']}" in page.text
    assert 'id="apply"' not in page.text
    refused = teacher.post(f"{url}/apply", json={"never_lower": False})
    assert refused.status_code == 409 and "need review" in refused.json()["detail"]
    assert teacher.get(url).json()["status"] == "ready"  # nothing applied, nothing kept silently


def _copies(db: Database, regrade_id: int) -> dict[str, int]:
    from app.courses.models import Regrade

    with db.transaction() as session:
        regrade = session.get(Regrade, regrade_id)
        assert regrade is not None
        return dict(regrade.copies)
