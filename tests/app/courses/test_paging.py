"""Course lists are keyset-paginated: My courses, a course's assignments, the gradebook and a
student's attempts (the drill-down).

Each walk follows ``next`` to the end and checks the pages against the whole list the service
computes (every row once, in order), with rows added between pages, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.accounts.models import User
from app.courses import api as courses_api
from app.courses import assignments, enrolment, gradebook, repository, visibility
from app.courses.models import INSTRUCTOR, STUDENT, Course, CourseMember, EnrolmentPeriod
from app.kit.db import Database, utcnow
from tests.app.courses import helpers
from tests.app.keyset import assert_ordered_by_index, plan_of, walk


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat()


def _course(db: Database, course_id: int) -> Course:
    with db.transaction() as session:
        course = repository.get_course(session, course_id)
        assert course is not None
        session.expunge(course)
        return course


def _user(db: Database, email: str) -> User:
    with db.transaction() as session:
        found = repository.get_user_by_email(session, email)
        assert found is not None
        session.expunge(found)
        return found


def _enrol(db: Database, course_id: int, email: str, section: str = "", status: str = "active") -> int:
    """A student member since 30 days ago (an enrolment period from then, closed now unless active)."""
    with db.transaction() as session:
        who = helpers.user(session, email=email)
        repository.add(
            session,
            CourseMember(course_id=course_id, user_id=who.id, role=STUDENT, section=section, status=status),
        )
        now = utcnow()
        left = None if status == "active" else now
        period = EnrolmentPeriod(course_id=course_id, user_id=who.id, joined_at=now - timedelta(days=30))
        period.left_at = left
        repository.add(session, period)
        return who.id


def _assignment(teacher, cid: int, title: str, due: datetime, release: datetime | None = None) -> int:
    response = teacher.post(
        f"/api/v1/courses/{cid}/assignments",
        json={
            "title": title,
            "problems": ["add-tensors", "sum-of-squares"],
            "release_at": _iso(release or utcnow() - timedelta(days=30)),
            "due_at": _iso(due),
        },
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _ids(pages: list[list[dict]]) -> list[int]:
    return [row["id"] for page in pages for row in page]


# --- My courses -----------------------------------------------------------------------------------


def test_my_courses_pages_walk_every_course_once_newest_first(make_account, db: Database) -> None:
    teacher, student = make_account("instructor"), make_account()
    made = []
    for i in range(5):
        course = teacher.post("/api/v1/courses", json={"title": f"Course {i}"}).json()
        assert student.post("/api/v1/courses/join", json={"code": course["join_code"]}).status_code == 200
        made.append(course["id"])
    left = teacher.post("/api/v1/courses", json={"title": "Left"}).json()
    student.post("/api/v1/courses/join", json={"code": left["join_code"]})
    with db.transaction() as session:  # two courses created at the same instant: the id breaks the tie
        same = utcnow() - timedelta(days=1)
        for cid in made[1:3]:
            found = repository.get_course(session, cid)
            assert found is not None
            found.created_at = same
        enrolment.set_student_status(
            session,
            repository.get_course(session, left["id"]),
            _user(db, student.email).id,
            "removed",
            utcnow(),
        )  # type: ignore[arg-type]
    newer: list[int] = []

    def between(page: int) -> None:
        if page == 1:  # joining a new course meanwhile: newest, so before the cursor
            course = teacher.post("/api/v1/courses", json={"title": "Meanwhile"}).json()
            student.post("/api/v1/courses/join", json={"code": course["join_code"]})
            newer.append(course["id"])

    pages = walk(student.get, "/api/v1/courses?limit=2", between=between)
    with db.transaction() as session:
        expected = [c.id for c, _m in enrolment.my_courses(session, _user(db, student.email))]
    assert [len(p) for p in pages] == [2, 2, 1]
    assert _ids(pages) == [i for i in expected if i not in newer]
    assert sorted(_ids(pages)) == sorted(made) and left["id"] not in _ids(pages)
    assert all(c["role"] == "student" for p in pages for c in p)
    teacher_pages = walk(teacher.get, "/api/v1/courses?limit=4")
    assert len(_ids(teacher_pages)) == 7 and all(c["role"] == "instructor" for p in teacher_pages for c in p)


# --- a course's assignments -----------------------------------------------------------------------


def test_assignment_pages_follow_each_students_own_release(make_account, db: Database, monkeypatch) -> None:
    teacher, student = make_account("instructor"), make_account()
    course = teacher.post("/api/v1/courses", json={"title": "Assignments"}).json()
    cid = course["id"]
    assert student.post("/api/v1/courses/join", json={"code": course["join_code"]}).status_code == 200
    now = utcnow()
    due = now + timedelta(days=7)
    released = [_assignment(teacher, cid, f"A{i}", due + timedelta(days=i // 2)) for i in range(5)]  # ties
    later = _assignment(teacher, cid, "Not yet", due, release=now + timedelta(days=3))
    early_for_me = _assignment(teacher, cid, "Early for me", due, release=now + timedelta(days=3))
    later_for_me = released[3]
    me = _user(db, student.email).id
    for aid, release in ((early_for_me, now - timedelta(hours=1)), (later_for_me, now + timedelta(days=1))):
        response = teacher.put(
            f"/api/v1/courses/{cid}/assignments/{aid}/extensions/{me}", json={"release_at": _iso(release)}
        )
        assert response.status_code == 200, response.text
    added: list[int] = []

    def between(page: int) -> None:
        if page == 1:  # due before everything seen (not shown), and after everything (shown once)
            added.append(_assignment(teacher, cid, "Earliest", now + timedelta(days=1)))
            added.append(_assignment(teacher, cid, "Last", now + timedelta(days=60)))

    for who, hidden in ((student, {later, later_for_me}), (teacher, set())):
        added.clear()
        pages = walk(who.get, f"/api/v1/courses/{cid}/assignments?limit=2", between=between)
        with db.transaction() as session:
            reference = assignments.visible_assignments(
                session, _course(db, cid), _user(db, who.email), utcnow()
            )
        expected = [a.id for a in reference if a.id != added[0]]
        assert _ids(pages) == expected and all(len(p) <= 2 for p in pages)
        assert hidden.isdisjoint(_ids(pages)) and added[1] in _ids(pages)
        assert (early_for_me in _ids(pages)) and all(
            p and p[0]["problems"] == ["add-tensors", "sum-of-squares"] for p in pages
        )
        # The course itself embeds the same list (it is short) and says there is no more.
        whole = who.get(f"/api/v1/courses/{cid}").json()
        assert [a["id"] for a in whole["assignments"]] == [a.id for a in reference] and whole[
            "assignments_next"
        ] is None

    monkeypatch.setattr(courses_api, "EMBEDDED_ASSIGNMENTS", 3)  # a long course: the embed pages on
    whole = teacher.get(f"/api/v1/courses/{cid}").json()
    rest = walk(teacher.get, whole["assignments_next"])
    with db.transaction() as session:
        every = [
            a.id
            for a in assignments.visible_assignments(
                session, _course(db, cid), _user(db, teacher.email), utcnow()
            )
        ]
    assert [a["id"] for a in whole["assignments"]] + _ids(rest) == every


def test_the_assignment_page_query_reads_its_index_in_order(make_account, db: Database) -> None:
    teacher = make_account("instructor")
    cid = teacher.post("/api/v1/courses", json={"title": "Plan"}).json()["id"]
    with db.transaction() as session:
        explained = plan_of(
            session,
            lambda: repository.assignments_page(
                session, cid, released_for=None, after=(utcnow(), 5), limit=11
            ),
        )
    assert_ordered_by_index(explained, "ix_assignments_course_due")


# --- the gradebook --------------------------------------------------------------------------------


def _gradebook_rows(book: gradebook.Gradebook) -> list[dict]:
    return gradebook.as_json(book)["students"]


def test_gradebook_pages_are_the_gradebook_in_order_with_its_filters(make_account, db: Database) -> None:
    teacher = make_account("instructor")
    course = teacher.post("/api/v1/courses", json={"title": "Gradebook"}).json()
    cid = course["id"]
    now = utcnow()
    first = _assignment(teacher, cid, "Week 1", now + timedelta(days=7))
    _assignment(teacher, cid, "Week 2", now + timedelta(days=14))
    tag = uuid.uuid4().hex[:6]
    emails = [f"{name}-{tag}@example.com" for name in ("b", "a_b", "axb", "c", "d", "e", "f", "g", "h")]
    for i, email in enumerate(emails):
        _enrol(db, cid, email, section="A" if i % 2 else "B")
    _enrol(db, cid, f"removed-{tag}@example.com", status="removed")
    with db.transaction() as session:  # scores that differ: some accepted, some wrong
        for i, email in enumerate(emails[:5]):
            who = repository.get_user_by_email(session, email)
            assert who is not None
            helpers.stored_submit(
                session, who, "add-tensors", now - timedelta(hours=1), "accepted" if i % 2 else "wrong_answer"
            )
    course = _course(db, cid)

    def whole(section: str | None = None, q: str | None = None) -> list[dict]:
        with db.transaction() as session:
            return _gradebook_rows(gradebook.build(session, course, section=section, q=q))

    added: dict[str, int] = {}

    def between(page: int) -> None:
        if page == 1:  # a student who sorts before the cursor (not shown) and one after it (shown once)
            added["before"] = _enrol(db, cid, f"0-{tag}@example.com", section="A")
            added["after"] = _enrol(db, cid, f"zz-{tag}@example.com", section="A")

    pages = walk(teacher.get, f"/api/v1/courses/{cid}/gradebook?limit=3", key="students", between=between)
    assert [len(p) for p in pages] == [3, 3, 3, 1]
    assert [r for p in pages for r in p] == [r for r in whole() if r["id"] != added["before"]]
    assert added["after"] == pages[-1][-1]["id"]

    # The filters page the same way (the section, and part of the email with LIKE's wildcards literal).
    for section, q in (("A", None), (None, f"A_B-{tag}"), ("B", tag), (None, "%"), (None, "nobody")):
        params = "".join(f"&{k}={v}" for k, v in (("section", section), ("q", q)) if v)
        pages = walk(
            teacher.get,
            f"/api/v1/courses/{cid}/gradebook?limit=2{params.replace('%', '%25')}",
            key="students",
        )
        assert [r for p in pages for r in p] == whole(section, q), params
    assert [r["email"] for r in whole(None, f"A_B-{tag}")] == [f"a_b-{tag}@example.com"]
    assert whole(None, "%") == [] and whole("A") and whole("B", tag)

    page = teacher.get(f"/api/v1/courses/{cid}/gradebook?limit=2&section=A&q={tag}").json()
    assert page["next"] and "section=A" in page["next"] and f"q={tag}" in page["next"]
    assert page["assignments"][0]["id"] == first
    # The downloads stay whole: one row per active student, however the API pages.
    csv_rows = teacher.get(f"/api/v1/courses/{cid}/gradebook.csv").content.decode("utf-8-sig").splitlines()
    assert len(csv_rows) == 1 + len(emails) + 2


@pytest.mark.parametrize("query", ["after=nope", "after=WyJhIl0", "limit=0", "limit=101"])
def test_bad_cursors_and_limits_are_422(make_account, query: str) -> None:
    teacher = make_account("instructor")
    cid = teacher.post("/api/v1/courses", json={"title": "Bad"}).json()["id"]
    paths = ("/api/v1/courses", f"/api/v1/courses/{cid}/assignments", f"/api/v1/courses/{cid}/gradebook",
             f"/api/v1/courses/{cid}/students/1")  # fmt: skip
    for path in paths:
        response = teacher.get(f"{path}?{query}")
        assert response.status_code == 422 and response.json()["error"] == "invalid_input", (path, query)


def test_the_gradebook_page_pages_students_and_keeps_every_section(
    new_browser, db: Database, monkeypatch
) -> None:
    from app.courses import pages
    from tests.app.courses.test_pages import _instructor

    monkeypatch.setattr(pages, "GRADEBOOK_PAGE", 3)
    teacher = _instructor(new_browser, db)
    with db.transaction() as session:
        owner = repository.get_user_by_email(session, teacher.email or "")
        assert owner is not None
        cid = enrolment.create_course(session, owner, "Paged page").id
    tag = uuid.uuid4().hex[:6]
    made = [_enrol(db, cid, f"{c}-{tag}@example.com", section="A" if c in "aceg" else "B") for c in "abcdefg"]
    seen: list[int] = []
    ranges: list[str] = []
    url: str | None = f"/courses/{cid}/gradebook"
    while url:
        page = teacher.get(url)
        assert page.status_code == 200
        shown = re.search(r'<p class="muted" id="gradebook-range">([^<]+)</p>', page.text)
        ranges.append(html.unescape(shown.group(1)) if shown else "")
        assert (
            '<option value="A"' in page.text and '<option value="B"' in page.text
        )  # every section, any page
        seen += [int(i) for i in re.findall(r'<tr data-student="(\d+)">', page.text)]
        found = re.search(r'<a href="([^"]+)" id="gradebook-next"', page.text)
        assert ('id="gradebook-first"' in page.text) == (url != f"/courses/{cid}/gradebook")
        url = html.unescape(found.group(1)) if found else None
    assert seen == made
    assert ranges == ["Students 1–3 of 7", "Students 4–6 of 7", "Students 7–7 of 7"]
    only_a = teacher.get(f"/courses/{cid}/gradebook?section=A").text
    assert "Students 1–3 of 4 matching these filters" in only_a
    more = re.search(r'<a href="([^"]+)" id="gradebook-next"', only_a)
    assert more is not None and "section=A" in html.unescape(more.group(1))
    rest = teacher.get(html.unescape(more.group(1))).text
    assert [int(i) for i in re.findall(r'<tr data-student="(\d+)">', rest)] == made[6:7]
    assert "Students 4–4 of 4 matching these filters" in rest
    assert teacher.get(f"/courses/{cid}/gradebook?after=forged").status_code == 422


# --- the drill-down: a student's attempts -------------------------------------------------------


def _attempts_course(make_account, db: Database) -> tuple[Any, int, int, list[int]]:
    """A course on add-tensors and sum-of-squares, a student with 11 attempts on them (two at the
    same instant), one on another problem and one of another student; (teacher, course id, student
    id, the attempts' ids newest first as (created_at, id) orders them)."""
    teacher = make_account("instructor")
    cid = teacher.post("/api/v1/courses", json={"title": "Drill"}).json()["id"]
    now = utcnow()
    _assignment(teacher, cid, "Week 1", now + timedelta(days=7), release=now - timedelta(days=3))
    tag = uuid.uuid4().hex[:6]
    me, other = _enrol(db, cid, f"me-{tag}@example.com"), _enrol(db, cid, f"other-{tag}@example.com")
    made = []
    with db.transaction() as session:
        who, them = repository.get_user(session, me), repository.get_user(session, other)
        assert who is not None and them is not None
        start = now - timedelta(days=2)
        for i in range(11):
            slug = "add-tensors" if i % 3 else "sum-of-squares"
            at = start + timedelta(minutes=i if i != 6 else 5)  # 5 and 6 share an instant
            made.append(
                helpers.stored_submit(session, who, slug, at, "accepted" if i == 4 else "wrong_answer")
            )
        helpers.stored_submit(session, who, "scale-rows", now - timedelta(hours=1))  # not the course's
        helpers.stored_submit(session, them, "add-tensors", now - timedelta(hours=1))
        newest = sorted(made, key=lambda s: (s.created_at, s.id), reverse=True)
        return teacher, cid, me, [s.id for s in newest]


def test_drill_down_pages_walk_every_attempt_once_newest_first(make_account, db: Database) -> None:
    teacher, cid, me, expected = _attempts_course(make_account, db)
    url = f"/api/v1/courses/{cid}/students/{me}"
    added: dict[str, int] = {}

    def between(page: int) -> None:
        if page == 1:  # a newer attempt (before the cursor: not shown) and an older one (shown last)
            with db.transaction() as session:
                who = repository.get_user(session, me)
                assert who is not None
                added["newer"] = helpers.stored_submit(session, who, "add-tensors", utcnow()).id
                older = utcnow() - timedelta(days=2, hours=1)
                added["older"] = helpers.stored_submit(
                    session, who, "sum-of-squares", older, "wrong_answer"
                ).id

    pages = walk(teacher.get, f"{url}?limit=3", key="attempts", between=between)
    assert [len(p) for p in pages] == [3, 3, 3, 3]
    assert _ids(pages) == [*expected, added["older"]]
    assert all(a["code"] and a["problem"] in ("add-tensors", "sum-of-squares") for p in pages for a in p)
    first = teacher.get(f"{url}?limit=3").json()
    assert first["student"]["id"] == me and first["next"] and "limit=3" in first["next"]
    # The scores are whole on every page: the accepted attempt is on page 3, its credit on page 1.
    credit = {p["slug"]: p["credit"] for p in first["assignments"][0]["problems"]}
    assert credit == {"add-tensors": 100.0, "sum-of-squares": 0.0}
    assert first["assignments"][0]["score"] == 50.0
    last = teacher.get(first["next"].replace("limit=3", "limit=100")).json()
    assert last["next"] is None and last["assignments"] == first["assignments"]


def test_the_drill_down_query_reads_its_index_in_order(make_account, db: Database) -> None:
    _teacher, _cid, me, _expected = _attempts_course(make_account, db)
    with db.transaction() as session:
        course = repository.get_course(session, _cid)
        assert course is not None
        visible = visibility.course_work(session, repository.assignments(session, course.id), [me]).where(me)
        for after in (None, (utcnow(), 2**31 - 1)):  # the first page and a deeper one
            explained = plan_of(
                session,
                lambda a=after: repository.attempts_page(session, visible, after=a, limit=11),  # type: ignore[misc]
            )
            assert_ordered_by_index(explained, "ix_submissions_user_created")


def test_the_drill_down_page_pages_attempts_with_the_scores_on_each(
    new_browser, db: Database, monkeypatch, make_account
) -> None:
    from app.courses import pages
    from tests.app.courses.test_pages import _instructor

    monkeypatch.setattr(pages, "ATTEMPTS_PAGE", 4)
    teacher = _instructor(new_browser, db)
    _api_teacher, cid, me, expected = _attempts_course(make_account, db)
    with db.transaction() as session:  # the page's instructor teaches the same course
        owner = repository.get_user_by_email(session, teacher.email or "")
        assert owner is not None
        repository.add(session, CourseMember(course_id=cid, user_id=owner.id, role=INSTRUCTOR))
    here = f"/courses/{cid}/students/{me}"
    seen: list[int] = []
    url: str | None = here
    while url:
        page = teacher.get(url)
        assert page.status_code == 200
        assert 'id="student-scores"' in page.text and "50.0 %" in page.text  # the scores, every page
        seen += [int(i) for i in re.findall(r'data-submission="(\d+)"', page.text)]
        assert ('id="attempts-newest"' in page.text) == (url != here)
        found = re.search(r'<a href="([^"]+)" id="attempts-older"', page.text)
        url = html.unescape(found.group(1)) if found else None
        assert url is None or url.endswith("#attempts")
    assert seen == expected
    assert teacher.get(f"{here}?after=forged").status_code == 422
