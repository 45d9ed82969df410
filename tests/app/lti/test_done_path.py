"""The issue's "done when", end to end through the LTI 1.3 platform on 127.0.0.1 and the real judge:
an instructor deep-links an assignment, a student launches into it signed in and solves it, the
score arrives at the platform's line item (made once), a regrade sends the corrected score, and the
roster syncs. Then passback failures: retried with back-off, shown to the instructor, resent."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.courses.models import CourseMember
from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.lti import claims
from app.lti.models import LtiGradeSync, LtiLineItem
from tests.app.conftest import Browser
from tests.app.courses.test_regrades import ABS, RIGHT, _publish, _wait_ready
from tests.app.lti.conftest import launch
from tests.app.lti.platform import INSTRUCTOR, LEARNER, Platform, User
from tests.app.lti.platform import launch_form as read_form

TEACHER = User("t-1", "Ada Teacher", "ada@uni.example", INSTRUCTOR)
STUDENT = User("s-1", "Sam Student", "sam@uni.example", LEARNER)


def _until(what: Callable[[], Any], message: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value:
            return value
        assert time.monotonic() < deadline, message
        time.sleep(0.05)


def _json(browser: Browser, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    return browser.request(method, url, json=body, headers={"X-CSRF-Token": browser.csrf()})


def _course_with_assignment(
    teacher: Browser,
    lms: Platform,
    slug: str,
    shift: timedelta = timedelta(0),
    late: list[dict[str, Any]] | None = None,
) -> tuple[int, int]:
    landed = launch(teacher, lms, TEACHER)
    assert landed.status_code == 303, landed.text
    course_id = int(landed.headers["location"].split("/")[2])
    now = utcnow() + shift
    made = _json(
        teacher,
        "POST",
        f"/api/v1/courses/{course_id}/assignments",
        {
            "title": "Week 1",
            "problems": [slug],
            "release_at": (now - timedelta(hours=1)).astimezone(UTC).isoformat(),
            "due_at": (now + timedelta(days=1)).astimezone(UTC).isoformat(),
            "late": late or [],
        },
    )
    assert made.status_code == 201, made.text
    return course_id, int(made.json()["id"])


def _deep_link(teacher: Browser, lms: Platform, choice: str) -> dict[str, Any]:
    picker = launch(teacher, lms, TEACHER, message_type=claims.DEEP_LINKING_REQUEST)
    assert picker.status_code == 303 and picker.headers["location"] == "/lti/deep-link"
    page = teacher.get("/lti/deep-link")
    assert page.status_code == 200 and choice in page.text
    returned = teacher.post(
        "/lti/deep-link", data={"choice": choice, "csrf_token": teacher.csrf("/lti/deep-link")}
    )
    assert returned.status_code == 200, returned.text
    assert "form-action 'self' " + lms.url in returned.headers["content-security-policy"]
    action, fields = read_form(returned.text, "lti-return-form")
    assert action == f"{lms.url}/deep-link-return"
    import httpx

    assert httpx.post(action, data=fields, timeout=10).status_code == 200  # the platform verifies it
    return lms.deep_link_replies[-1]


def test_deep_link_launch_solve_score_regrade_roster(
    platform: Platform, new_browser: Callable[[], Browser], db: Database, runner: JudgeRunner, tmp_path: Path
) -> None:
    slug = f"lti-{uuid.uuid4().hex[:8]}"
    _publish(db, runner, tmp_path, slug, ABS)  # v1's reference is wrong on negatives
    teacher = new_browser()
    course_id, assignment_id = _course_with_assignment(teacher, platform, slug)

    reply = _deep_link(teacher, platform, f"assignment:{assignment_id}")
    assert (
        reply[claims.MESSAGE_TYPE] == claims.DEEP_LINKING_RESPONSE
        and reply[claims.DL_DATA] == "opaque-platform-data"
    )
    (item,) = reply[claims.DL_CONTENT_ITEMS]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"assignment": str(assignment_id)}
    assert item["lineItem"]["scoreMaximum"] == 100
    problem_reply = _deep_link(teacher, platform, f"problem:{slug}")
    assert problem_reply[claims.DL_CONTENT_ITEMS][0]["custom"] == {"problem": slug}

    student = new_browser()
    landed = launch(student, platform, STUDENT, custom=item["custom"], resource_link_id="rl-week-1")
    assert landed.status_code == 303
    assert landed.headers["location"] == f"/courses/{course_id}/assignments/{assignment_id}"
    assert student.get(landed.headers["location"]).status_code == 200  # signed in, enrolled
    assert len(platform.line_items) == 1  # made once...
    launch(new_browser(), platform, STUDENT, custom=item["custom"], resource_link_id="rl-week-1")
    assert len(platform.line_items) == 1  # ...and reused
    (line_item,) = platform.line_items

    submitted = student.submit(slug, ABS)
    assert submitted.status_code in (200, 201, 202), submitted.text
    assert student.verdict(submitted.json()["id"])["verdict"] == "accepted"
    first = _until(
        lambda: [s for s in platform.scores if s["userId"] == STUDENT.sub], "no score reached the LMS"
    )
    assert (
        first[-1]["scoreGiven"] == 100
        and first[-1]["scoreMaximum"] == 100
        and first[-1]["_line_item"] == line_item
    )
    assert first[-1]["gradingProgress"] == "FullyGraded"

    _publish(db, runner, tmp_path, slug, RIGHT)  # v2 fixes the reference: the student's code is wrong
    base = f"/api/v1/courses/{course_id}/assignments/{assignment_id}/regrades"
    run = _json(teacher, "POST", base, {"problem": slug})
    assert run.status_code == 201, run.text
    url = f"{base}/{run.json()['id']}"
    assert _wait_ready(teacher, url)["status"] == "ready"
    count = len(platform.scores)
    applied = _json(teacher, "POST", f"{url}/apply", {"never_lower": False})
    assert applied.status_code == 200, applied.text
    corrected = _until(lambda: platform.scores[count:], "the corrected score never reached the LMS")
    assert corrected[-1]["userId"] == STUDENT.sub and corrected[-1]["scoreGiven"] == 0
    assert len(platform.line_items) == 1

    # the roster: two pages from the platform; inactive members are not enrolled
    platform.members = [
        {"user_id": STUDENT.sub, "roles": LEARNER, "status": "Active", "name": STUDENT.name},
        {"user_id": "s-new", "roles": LEARNER, "status": "Active", "name": "New", "email": "new@uni.example"},
        {"user_id": "t-2", "roles": INSTRUCTOR, "status": "Active", "name": "TA"},
        {"user_id": "s-gone", "roles": LEARNER, "status": "Inactive"},
    ]
    synced = _json(teacher, "POST", f"/api/v1/courses/{course_id}/lti/roster-sync")
    assert synced.status_code == 200, synced.text
    assert synced.json() | {"errors": []} == {"students": 2, "instructors": 1, "skipped": 1, "errors": []}
    with db.transaction() as session:
        roles = sorted(
            session.scalars(
                select(CourseMember.role).where(
                    CourseMember.course_id == course_id, CourseMember.status == "active"
                )
            )
        )
    assert roles == ["instructor", "instructor", "student", "student"]
    page = teacher.post(f"/courses/{course_id}/lti/roster", data={"csrf_token": teacher.csrf()})
    assert page.status_code == 303 and "Roster synced" in teacher.get(f"/courses/{course_id}/lti").text


def test_failed_passback_backs_off_shows_and_resends(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database
) -> None:
    teacher = new_browser()
    course_id, assignment_id = _course_with_assignment(teacher, platform, "add-tensors")
    student = new_browser()
    custom = {"assignment": str(assignment_id)}
    assert launch(student, platform, STUDENT, custom=custom).status_code == 303
    platform.fail_scores = 1_000
    submitted = student.submit(
        "add-tensors", (Path(__file__).parents[1] / "fixtures/bank/add-tensors/solution.py").read_text()
    )
    assert student.verdict(submitted.json()["id"])["verdict"] == "accepted"

    def waiting() -> Any:
        with db.transaction() as session:
            row = session.scalars(select(LtiGradeSync)).first()
            return row if row is not None and row.attempts >= 1 else None

    row = _until(waiting, "the failed passback was not recorded")
    assert row.status == "pending" and "503" in row.last_error
    assert row.next_attempt_at > utcnow() + timedelta(seconds=30)  # backed off, not hammering
    page = teacher.get(f"/courses/{course_id}/lti")
    assert "Grades waiting to sync" in page.text and "503" in page.text
    listed = teacher.get(f"/api/v1/courses/{course_id}/lti/grade-syncs").json()["items"]
    assert [(i["id"], i["status"]) for i in listed] == [(row.id, "pending")]
    assert student.get(f"/api/v1/courses/{course_id}/lti/grade-syncs").status_code == 404

    platform.fail_scores = 0
    resent = teacher.post(
        f"/courses/{course_id}/lti/grades/{row.id}/resend", data={"csrf_token": teacher.csrf()}
    )
    assert resent.status_code == 303
    _until(lambda: platform.scores, "the resent score never arrived")
    assert platform.scores[-1]["scoreGiven"] == 100
    _until(
        lambda: "Every score has reached the LMS" in teacher.get(f"/courses/{course_id}/lti").text,
        "still waiting",
    )
    with db.transaction() as session:
        assert session.scalar(select(func.count()).select_from(LtiLineItem)) == 1


def test_the_score_sent_respects_the_late_rules(
    platform: Platform, new_browser: Callable[[], Browser], db: Database, code_of: Callable[..., str]
) -> None:
    """Due yesterday, a late window at 40 % until tomorrow: the LMS gets 40, as the gradebook says."""
    late = [{"until": (utcnow() + timedelta(days=1)).astimezone(UTC).isoformat(), "credit": 40}]
    teacher = new_browser()
    course_id, assignment_id = _course_with_assignment(
        teacher, platform, "add-tensors", timedelta(days=-2), late
    )
    student = new_browser()
    assert launch(student, platform, STUDENT, custom={"assignment": str(assignment_id)}).status_code == 303
    submitted = student.submit("add-tensors", code_of("add-tensors"))
    assert student.verdict(submitted.json()["id"])["verdict"] == "accepted"
    sent = _until(lambda: platform.scores, "no score reached the LMS")
    assert sent[-1]["scoreGiven"] == 40
    book = teacher.get(f"/api/v1/courses/{course_id}/gradebook").json()
    assert [s["scores"][str(assignment_id)] for s in book["students"]] == [40.0]


def test_a_verdict_recorded_by_another_process_is_passed_back(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database
) -> None:
    """Scaled out, the web process hears only the id of a verdict the recorder stored; the worker
    looks the submission up (a regrade's copy or a practice run would be skipped)."""
    from app.accounts.models import User as Account
    from app.lti.models import LtiUserLink
    from app.lti.worker import PassbackWorker
    from tests.app.courses.helpers import stored_submit

    teacher = new_browser()
    _course_id, assignment_id = _course_with_assignment(teacher, platform, "add-tensors")
    assert (
        launch(new_browser(), platform, STUDENT, custom={"assignment": str(assignment_id)}).status_code == 303
    )
    with db.transaction() as session:
        link = session.scalars(select(LtiUserLink).where(LtiUserLink.sub == STUDENT.sub)).one()
        student = session.get(Account, link.user_id)
        assert student is not None
        run = stored_submit(session, student, "add-tensors", utcnow(), mode="run").id
        submit = stored_submit(session, student, "add-tensors", utcnow()).id
    worker = PassbackWorker(db, app.state.settings.secret_key)  # not started: driven by hand
    worker.on_verdict(run, None)
    worker.run_once()
    assert platform.scores == []  # a run is not graded
    worker.on_verdict(submit, None)
    worker.run_once()
    assert [(s["userId"], s["scoreGiven"]) for s in platform.scores] == [(STUDENT.sub, 100)]
