"""Course privacy, attacked through real HTTP (a live uvicorn server on 127.0.0.1, API tokens and
cookie sessions with CSRF): enrolling a learner shows none of their earlier code by any route.

Each attack is an instructor (or another account) trying to reach a learner's work that is not the
course's: by roster-enrolling them, with an assignment released in the future, from before they
joined, after they left, on a problem outside the course, by moving their dates, through another
account's invitation, from another course, by rostering staff, and by a regrade. Every read goes
through every route that shows a student's work: the drill-down API and page, the gradebook JSON,
CSV and XLSX, and ``torchdrill course export``.
"""

from __future__ import annotations

import csv
import io
import re
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from tests.app.courses.privacy_http import (
    SECRET,
    Person,
    csv_row,
    drill_down_api,
    drill_down_page,
    gradebook_row,
    history,
    person,
    stored,
    xlsx_text,
)

COURSE_PROBLEMS = ("add-tensors", "sum-of-squares")


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat()


@pytest.fixture
def people(db: Database, live_server: str) -> Iterator[Callable[..., Person]]:
    made: list[Person] = []

    def make(role: str = "student", email: str | None = None) -> Person:
        who = person(db, live_server, role, email)
        made.append(who)
        return who

    yield make
    for who in made:
        who.close()


def _course(teacher: Person, title: str = "Privacy") -> dict[str, Any]:
    created = teacher.api.post("/api/v1/courses", json={"title": title})
    assert created.status_code == 201, created.text
    return dict(created.json())


def _assignment(
    teacher: Person,
    cid: int,
    release: datetime,
    due: datetime,
    problems: tuple[str, ...] = COURSE_PROBLEMS,
    late: list[dict[str, Any]] | None = None,
) -> int:
    made = teacher.api.post(
        f"/api/v1/courses/{cid}/assignments",
        json={
            "title": f"A {uuid.uuid4().hex[:4]}",
            "problems": list(problems),
            "release_at": _iso(release),
            "due_at": _iso(due),
            "late": late or [],
        },
    )
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


def _join(student: Person, code: str) -> None:
    joined = student.api.post("/api/v1/courses/join", json={"code": code})
    assert joined.status_code == 200, joined.text


def _cli_export(server: str, teacher: Person, cid: int, tmp_path: Path, monkeypatch: Any) -> list[list[str]]:
    from app.cli.main import app as cli

    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "config.json"))
    token = teacher.api.headers["Authorization"].removeprefix("Bearer ")
    runner = CliRunner()
    assert runner.invoke(cli, ["login", "--server", server, "--token", token]).exit_code == 0
    target = tmp_path / f"export-{uuid.uuid4().hex[:6]}.csv"
    result = runner.invoke(cli, ["course", "export", str(cid), "--format", "csv", "-o", str(target)])
    assert result.exit_code == 0, result.output
    return list(csv.reader(io.StringIO(target.read_text(encoding="utf-8-sig"))))


def assert_sees(teacher: Person, cid: int, student: Person, attempts: list[int], scores: list[float]) -> None:
    """Every instructor route shows exactly ``attempts`` (newest first) and ``scores`` (per assignment,
    in due order) of ``student`` and no code beyond those attempts'."""
    status, api_ids, assignments = drill_down_api(teacher, cid, student.id)
    assert status == 200
    assert api_ids == attempts
    assert [a["score"] for a in assignments] == scores
    status, page_ids, text = drill_down_page(teacher, cid, student.id)
    assert status == 200 and page_ids == attempts
    assert text.count(SECRET) == len(attempts)  # no other code of theirs on the page
    row = gradebook_row(teacher, cid, student.email)
    assert row is not None and list(row.values()) == scores
    exported = csv_row(teacher, cid, student.email)
    assert exported is not None and [float(v) for v in exported[4:-1]] == scores


def _no_score_cells(teacher: Person, cid: int) -> bool:
    return "<v>100</v>" not in xlsx_text(teacher, cid) and "<v>50</v>" not in xlsx_text(teacher, cid)


# --- roster import, then every route ------------------------------------------------------------


def test_roster_import_of_an_existing_learner_shows_none_of_their_earlier_code(
    people, db: Database, live_server: str, tmp_path: Path, monkeypatch: Any
) -> None:
    teacher, learner = people("instructor"), people()
    now = utcnow()
    earlier = history(db, learner, [now - timedelta(days=d) for d in range(12, 0, -1)], COURSE_PROBLEMS)
    assert len(earlier) == 12
    course = _course(teacher)
    cid = course["id"]
    # the course: an assignment released in 2030, and one released a month ago
    _assignment(teacher, cid, datetime(2030, 1, 1, tzinfo=UTC), datetime(2030, 2, 1, tzinfo=UTC))
    _assignment(teacher, cid, now - timedelta(days=30), now + timedelta(days=7))

    report = teacher.api.post(f"/api/v1/courses/{cid}/roster", json={"csv": f"email\n{learner.email}\n"})
    assert report.status_code == 200
    assert report.json()["enrolled"] == [] and [i["email"] for i in report.json()["invited"]] == [
        learner.email
    ]

    # invited is not enrolled: nothing of theirs is reachable, by any route
    assert drill_down_api(teacher, cid, learner.id)[0] == 404
    assert drill_down_page(teacher, cid, learner.id)[0] == 404
    assert gradebook_row(teacher, cid, learner.email) is None
    assert csv_row(teacher, cid, learner.email) is None
    assert learner.email not in xlsx_text(teacher, cid)
    assert all(
        learner.email not in row for row in _cli_export(live_server, teacher, cid, tmp_path, monkeypatch)
    )
    assert learner.api.get(f"/api/v1/courses/{cid}").status_code == 404

    # the learner sees the invitation and accepts it: still none of their earlier work shows
    invitations = learner.api.get("/api/v1/courses/invitations").json()["items"]
    assert [i["course"]["id"] for i in invitations] == [cid]
    _join(learner, invitations[0]["code"])
    assert_sees(teacher, cid, learner, [], [0.0, 0.0])
    assert _no_score_cells(teacher, cid)
    exported = _cli_export(live_server, teacher, cid, tmp_path, monkeypatch)
    assert [r[4:] for r in exported if r[1] == learner.email] == [["0.0", "0.0", "0.0"]]

    # work for the course after accepting is what the instructor sees
    after, _code = stored(db, learner, "add-tensors")
    assert_sees(teacher, cid, learner, [after], [50.0, 0.0])
    assert learner.api.get("/api/v1/courses/invitations").json()["items"] == []


def test_the_page_roster_import_invites_and_the_learner_accepts_on_my_courses(people, db: Database) -> None:
    teacher, learner = people("instructor"), people()
    earlier = history(db, learner, [utcnow() - timedelta(days=2)], ("add-tensors",))
    cid = _course(teacher)["id"]
    _assignment(teacher, cid, utcnow() - timedelta(days=10), utcnow() + timedelta(days=1))
    page = teacher.web.post(
        f"/courses/{cid}/roster",
        data={"csrf_token": teacher.csrf(f"/courses/{cid}")},
        files={"file": ("roster.csv", f"email,section\n{learner.email},A\n".encode(), "text/csv")},
    )
    assert page.status_code == 200 and "Invited 1; skipped 0." in page.text
    assert learner.web.get(f"/courses/{cid}").status_code == 404
    assert drill_down_page(teacher, cid, learner.id)[0] == 404
    mine = learner.web.get("/courses").text
    assert 'id="my-invitations"' in mine and "Privacy" in mine
    invitation = learner.api.get("/api/v1/courses/invitations").json()["items"][0]
    accepted = learner.form("/courses/join", {"code": invitation["code"]})
    assert accepted.status_code == 303 and accepted.headers["location"] == f"/courses/{cid}"
    assert_sees(teacher, cid, learner, [], [0.0])
    assert earlier  # ... which existed all along


# --- dates: the future, before joining, after leaving, other problems, moved dates ---------------


def test_work_before_joining_after_leaving_and_off_course_stays_private(people, db: Database) -> None:
    teacher, learner = people("instructor"), people()
    now = utcnow()
    course = _course(teacher)
    cid = course["id"]
    aid = _assignment(teacher, cid, now - timedelta(days=10), now + timedelta(days=10))
    before_id, before_code = stored(db, learner, "add-tensors", now - timedelta(days=5))  # in the window
    _join(learner, course["join_code"])
    during, _ = stored(db, learner, "sum-of-squares", verdict="wrong_answer")
    off_course, off_code = stored(db, learner, "scale-rows")  # not a problem of the course
    assert_sees(teacher, cid, learner, [during], [0.0])  # the accepted one before joining earns nothing

    # moving the student's dates does not reach before they joined
    ext = teacher.api.put(
        f"/api/v1/courses/{cid}/assignments/{aid}/extensions/{learner.id}",
        json={"release_at": "2020-01-01T00:00:00+00:00"},
    )
    assert ext.status_code == 200
    assert_sees(teacher, cid, learner, [during], [0.0])

    left = learner.api.post(f"/api/v1/courses/{cid}/leave")
    assert left.status_code == 200 and left.json()["status"] == "left"
    assert learner.api.get(f"/api/v1/courses/{cid}").status_code == 404
    after_leaving, after_code = stored(db, learner, "add-tensors")
    # the instructor cannot bring them back: only the student rejoins
    restored = teacher.api.put(f"/api/v1/courses/{cid}/students/{learner.id}", json={"status": "active"})
    assert restored.status_code == 409
    reinvite = teacher.api.post(f"/api/v1/courses/{cid}/roster", json={"csv": learner.email})
    assert [i["email"] for i in reinvite.json()["invited"]] == [learner.email]
    assert learner.api.get(f"/api/v1/courses/{cid}").status_code == 404  # invited again, not enrolled

    # while out: what they did while enrolled is the course's record, nothing else
    status, ids, _ = drill_down_api(teacher, cid, learner.id)
    assert status == 200 and ids == [during]
    status, ids, text = drill_down_page(teacher, cid, learner.id)
    assert status == 200 and ids == [during]
    for code in (before_code, off_code, after_code):
        assert code.split("\n")[0] not in text
    assert gradebook_row(teacher, cid, learner.email) is None  # not listed while out

    _join(learner, course["join_code"])  # rejoining opens a new period; the gap stays private
    again, _ = stored(db, learner, "add-tensors")
    assert_sees(teacher, cid, learner, [again, during], [50.0])
    assert before_id not in drill_down_api(teacher, cid, learner.id)[1]
    assert after_leaving not in drill_down_api(teacher, cid, learner.id)[1]
    assert off_course not in drill_down_api(teacher, cid, learner.id)[1]


def test_an_assignment_released_in_the_future_shows_nothing(people, db: Database) -> None:
    teacher, learner = people("instructor"), people()
    course = _course(teacher)
    cid = course["id"]
    _assignment(teacher, cid, datetime(2030, 1, 1, tzinfo=UTC), datetime(2030, 2, 1, tzinfo=UTC))
    history(db, learner, [utcnow() - timedelta(days=d) for d in (3, 2, 1)], COURSE_PROBLEMS)
    _join(learner, course["join_code"])
    stored(db, learner, "add-tensors")  # after joining, but before the release
    assert_sees(teacher, cid, learner, [], [0.0])


def test_work_after_an_assignment_closes_is_not_the_courses(people, db: Database) -> None:
    teacher, learner = people("instructor"), people()
    now = utcnow()
    course = _course(teacher)
    cid = course["id"]
    _join(learner, course["join_code"])
    with db.transaction() as session:  # joined a month ago (the course is older than this test)
        from app.courses import repository

        period = repository.open_period(session, cid, learner.id)
        assert period is not None
        period.joined_at = now - timedelta(days=30)
    _assignment(
        teacher,
        cid,
        now - timedelta(days=20),
        now - timedelta(days=10),
        late=[{"until": _iso(now - timedelta(days=5)), "credit": 50}],
    )
    on_time, _ = stored(db, learner, "add-tensors", now - timedelta(days=15), "wrong_answer")
    late, _ = stored(db, learner, "sum-of-squares", now - timedelta(days=7))
    stored(db, learner, "add-tensors", now - timedelta(days=2))  # after the last window: practice
    assert_sees(teacher, cid, learner, [late, on_time], [25.0])


# --- invitations bound to their email --------------------------------------------------------------


def test_an_invitation_opened_by_another_account_is_refused(people, db: Database) -> None:
    teacher, invited, intruder = people("instructor"), people(), people()
    cid = _course(teacher)["id"]
    unknown = f"later-{uuid.uuid4().hex[:8]}@example.com"
    report = teacher.api.post(
        f"/api/v1/courses/{cid}/roster", json={"csv": f"{invited.email}\n{unknown}\n"}
    ).json()
    codes = {i["email"]: i["code"] for i in report["invited"]}
    for code in codes.values():
        for variant in (code, code.lower(), f"  {code[:5]} {code[5:]} "):
            refused = intruder.api.post("/api/v1/courses/join", json={"code": variant})
            assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
            assert invited.email not in refused.text and unknown not in refused.text
        page = intruder.web.get(f"/courses/join?code={code}")
        assert page.status_code == 200  # opening the link only fills the form
        posted = intruder.form("/courses/join", {"code": code})
        assert posted.status_code == 403 and "another email address" in posted.text
    assert intruder.api.get("/api/v1/courses").json()["items"] == []
    assert intruder.api.get("/api/v1/courses/invitations").json()["items"] == []
    invitation_id = invited.api.get("/api/v1/courses/invitations").json()["items"][0]["id"]
    assert intruder.api.post(f"/api/v1/courses/invitations/{invitation_id}/decline").status_code == 404
    members = teacher.web.get(f"/courses/{cid}").text
    assert intruder.email not in members
    # the invitee's own account can still accept it; someone who signs up with the email later too
    _join(invited, codes[invited.email])
    newcomer = people(email=unknown)
    _join(newcomer, codes[unknown])
    assert {s["email"] for s in teacher.api.get(f"/api/v1/courses/{cid}/gradebook").json()["students"]} == {
        invited.email,
        unknown,
    }


def test_a_declined_invitation_is_not_sent_again_and_enrols_nobody(people) -> None:
    teacher, learner = people("instructor"), people()
    cid = _course(teacher)["id"]
    teacher.api.post(f"/api/v1/courses/{cid}/roster", json={"csv": learner.email})
    invitation = learner.api.get("/api/v1/courses/invitations").json()["items"][0]
    declined = learner.form(f"/courses/invitations/{invitation['id']}/decline")
    assert declined.status_code == 303
    assert learner.api.get("/api/v1/courses/invitations").json()["items"] == []
    again = teacher.api.post(f"/api/v1/courses/{cid}/roster", json={"csv": learner.email}).json()
    assert again["invited"] == [] and "declined" in again["skipped"][0]["reason"]
    assert learner.api.get(f"/api/v1/courses/{cid}").status_code == 404
    assert "declined" in teacher.web.get(f"/courses/{cid}").text


# --- staff, other courses ---------------------------------------------------------------------------


def test_staff_in_a_roster_are_never_enrolled_or_invited(people, db: Database) -> None:
    teacher, colleague, admin = people("instructor"), people("instructor"), people("admin")
    history(db, colleague, [utcnow() - timedelta(days=1)], ("add-tensors",))
    cid = _course(teacher)["id"]
    _assignment(teacher, cid, utcnow() - timedelta(days=5), utcnow() + timedelta(days=5))
    roster = f"email\n{colleague.email.upper()}\n{admin.email}\n"
    page = teacher.web.post(
        f"/courses/{cid}/roster", data={"csrf_token": teacher.csrf(f"/courses/{cid}"), "text": roster}
    )
    assert page.status_code == 200 and "Invited 0; skipped 2." in page.text
    report = teacher.api.post(f"/api/v1/courses/{cid}/roster", json={"csv": roster}).json()
    assert report["invited"] == [] and len(report["skipped"]) == 2
    assert all("staff account" in s["reason"] for s in report["skipped"])
    for staff in (colleague, admin):
        assert staff.api.get("/api/v1/courses/invitations").json()["items"] == []
        assert drill_down_api(teacher, cid, staff.id)[0] == 404
        assert gradebook_row(teacher, cid, staff.email) is None
    assert colleague.api.get("/api/v1/courses").json()["items"] == []


def test_an_instructor_of_one_course_reads_nothing_of_another(people, db: Database) -> None:
    owner_a, owner_b, learner = people("instructor"), people("instructor"), people()
    course_b = _course(owner_b, "B")
    cid_a, cid_b = _course(owner_a, "A")["id"], course_b["id"]
    aid_b = _assignment(owner_b, cid_b, utcnow() - timedelta(days=1), utcnow() + timedelta(days=1))
    _join(learner, course_b["join_code"])
    stored(db, learner, "add-tensors")
    for url in (
        f"/api/v1/courses/{cid_b}/students/{learner.id}",
        f"/api/v1/courses/{cid_b}/gradebook",
        f"/api/v1/courses/{cid_b}/gradebook.csv",
        f"/api/v1/courses/{cid_b}/gradebook.xlsx",
        f"/api/v1/courses/{cid_b}/assignments/{aid_b}",
        f"/api/v1/courses/{cid_a}/students/{learner.id}",  # B's student through A
    ):
        refused = owner_a.api.get(url)
        assert refused.status_code == 404, url
    for url in (
        f"/courses/{cid_b}/students/{learner.id}",
        f"/courses/{cid_b}/gradebook",
        f"/courses/{cid_b}/assignments/{aid_b}/regrades",
        f"/courses/{cid_a}/students/{learner.id}",
    ):
        assert owner_a.web.get(url).status_code == 404, url
    started = owner_a.api.post(
        f"/api/v1/courses/{cid_b}/assignments/{aid_b}/regrades", json={"problem": "add-tensors"}
    )
    assert started.status_code == 404
    ext = owner_a.api.put(
        f"/api/v1/courses/{cid_a}/assignments/{aid_b}/extensions/{learner.id}", json={"due_at": None}
    )
    assert ext.status_code == 404
    removed = owner_a.api.put(f"/api/v1/courses/{cid_a}/students/{learner.id}", json={"status": "removed"})
    assert removed.status_code == 404


# --- regrades ---------------------------------------------------------------------------------------


def test_a_regrade_copies_only_the_courses_work(
    people, db: Database, runner: JudgeRunner, tmp_path: Path
) -> None:
    from tests.app.courses.test_regrades import ABS, RIGHT, _publish, _wait_ready

    slug = f"private-{uuid.uuid4().hex[:8]}"
    _publish(db, runner, tmp_path, slug, ABS)  # v1
    teacher, learner, outsider = people("instructor"), people(), people()
    now = utcnow()
    course = _course(teacher)
    cid = course["id"]
    aid = _assignment(teacher, cid, now - timedelta(days=10), now + timedelta(days=10), problems=(slug,))
    stored(db, learner, slug, now - timedelta(days=3))  # before joining
    stored(db, outsider, slug, now - timedelta(days=1))  # never in the course
    _join(learner, course["join_code"])
    inside, _ = stored(db, learner, slug, verdict="wrong_answer")
    _publish(db, runner, tmp_path, slug, RIGHT)  # v2: every stored submission is stale
    base = f"/api/v1/courses/{cid}/assignments/{aid}/regrades"
    page = teacher.web.get(f"/courses/{cid}/assignments/{aid}/regrades").text
    assert re.search(rf'data-slug="{slug}">\s*<td>[^<]*</td><td>v2</td><td class="num">1</td>', page), page
    run = teacher.api.post(base, json={"problem": slug})
    assert run.status_code == 201, run.text
    assert run.json()["total"] == 1  # the one submission made for the course
    ready = _wait_ready(teacher.api, f"{base}/{run.json()['id']}")
    assert ready["judged"] == 1
    assert [c["email"] for c in ready["changes"]] == [learner.email]  # wrong_answer -> accepted
    assert_sees(teacher, cid, learner, [inside], [0.0])  # a dry run changes nothing yet


# --- leaving and blocking on the pages ------------------------------------------------------------


def test_a_student_leaves_on_the_course_page_and_the_instructor_cannot_bring_them_back(
    people, db: Database
) -> None:
    teacher, learner = people("instructor"), people()
    course = _course(teacher)
    cid = course["id"]
    _assignment(teacher, cid, utcnow() - timedelta(days=1), utcnow() + timedelta(days=1))
    assert learner.form("/courses/join", {"code": course["join_code"]}).status_code == 303
    page = learner.web.get(f"/courses/{cid}").text
    assert 'id="leave-course"' in page and "stays in the course's record" in page
    assert 'id="leave-course"' not in teacher.web.get(f"/courses/{cid}").text
    assert learner.web.post(f"/courses/{cid}/leave", data={"csrf_token": "forged"}).status_code == 403
    assert learner.api.get(f"/api/v1/courses/{cid}").status_code == 200  # a forged form changed nothing
    left = learner.form(f"/courses/{cid}/leave", page=f"/courses/{cid}")
    assert left.status_code == 303 and left.headers["location"] == "/courses"
    assert learner.web.get(f"/courses/{cid}").status_code == 404
    assert learner.form(f"/courses/{cid}/leave").status_code == 404  # not in it any more
    stored(db, learner, "add-tensors")
    assert drill_down_api(teacher, cid, learner.id)[1] == []
    roster = teacher.web.get(f"/courses/{cid}").text
    assert f'data-student="{learner.id}"' in roster and "<td>left</td>" in roster
    forced = teacher.form(
        f"/courses/{cid}/students/{learner.id}/status", {"status": "active"}, f"/courses/{cid}"
    )
    assert forced.status_code == 409 and "Only the student can rejoin" in forced.text
    assert learner.api.get(f"/api/v1/courses/{cid}").status_code == 404
    # an instructor leaving their own course is not a thing
    assert teacher.api.post(f"/api/v1/courses/{cid}/leave").status_code == 409


def test_blocking_ends_visibility_and_unblocking_only_lets_the_student_rejoin(people, db: Database) -> None:
    teacher, learner = people("instructor"), people()
    course = _course(teacher)
    cid = course["id"]
    _assignment(teacher, cid, utcnow() - timedelta(days=1), utcnow() + timedelta(days=1))
    _join(learner, course["join_code"])
    during, _ = stored(db, learner, "add-tensors")
    url = f"/courses/{cid}/students/{learner.id}/status"
    assert teacher.form(url, {"status": "blocked"}, f"/courses/{cid}").status_code == 303
    blocked_work, _ = stored(db, learner, "add-tensors")
    assert learner.api.post("/api/v1/courses/join", json={"code": course["join_code"]}).status_code == 403
    assert teacher.form(url, {"status": "removed"}, f"/courses/{cid}").status_code == 303  # unblock
    assert learner.api.get(f"/api/v1/courses/{cid}").status_code == 404  # unblocked is not enrolled
    _join(learner, course["join_code"])
    assert drill_down_api(teacher, cid, learner.id)[1] == [during]
    assert blocked_work not in drill_down_api(teacher, cid, learner.id)[1]


# --- invitation-only courses ----------------------------------------------------------------------


def test_a_join_code_enrols_nobody_in_an_invitation_only_course(people) -> None:
    teacher, invited, stranger = people("instructor"), people(), people()
    made = teacher.api.post("/api/v1/courses", json={"title": "Closed", "invitation_only": True}).json()
    assert made["invitation_only"] is True
    cid, code = made["id"], made["join_code"]
    rotated = teacher.api.post(f"/api/v1/courses/{cid}/join-code", json={}).json()["join_code"]
    assert stranger.api.post("/api/v1/courses/join", json={"code": code}).status_code == 404  # rotated away
    for attempt in (rotated, rotated.lower(), f" {rotated[:4]} {rotated[4:]} "):
        refused = stranger.api.post("/api/v1/courses/join", json={"code": attempt})
        assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    posted = stranger.form("/courses/join", {"code": rotated})
    assert posted.status_code == 403 and "invited students only" in posted.text
    assert stranger.api.get(f"/api/v1/courses/{cid}").status_code == 404
    # students cannot open it up themselves
    assert (
        stranger.api.put(f"/api/v1/courses/{cid}/enrolment", json={"invitation_only": False}).status_code
        == 404
    )
    assert stranger.form(f"/courses/{cid}/enrolment", {}).status_code == 404
    # an invitation still works, for its own account
    teacher.api.post(f"/api/v1/courses/{cid}/roster", json={"csv": invited.email})
    _join(invited, invited.api.get("/api/v1/courses/invitations").json()["items"][0]["code"])
    # the instructor's page switch: off lets the code work, on closes it again
    assert teacher.form(f"/courses/{cid}/enrolment", {}, f"/courses/{cid}").status_code == 303
    assert 'id="make-invitation-only"' in teacher.web.get(f"/courses/{cid}").text
    _join(stranger, rotated)
    assert (
        teacher.form(f"/courses/{cid}/enrolment", {"invitation_only": "true"}, f"/courses/{cid}").status_code
        == 303
    )
    assert 'id="invitation-only"' in teacher.web.get(f"/courses/{cid}").text
    late = people()
    assert late.api.post("/api/v1/courses/join", json={"code": rotated}).status_code == 403
    students = {s["email"] for s in teacher.api.get(f"/api/v1/courses/{cid}/gradebook").json()["students"]}
    assert students == {invited.email, stranger.email}
