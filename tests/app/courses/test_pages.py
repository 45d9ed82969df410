"""The course pages through forms with CSRF: create, join, assignment, gradebook, drill-down, access."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import timedelta

from app.accounts.service import sign_up
from app.courses import forms
from app.kit.db import Database, utcnow
from tests.app.conftest import PASSWORD, Browser


def _instructor(new_browser: Callable[[], Browser], db: Database) -> Browser:
    email = f"teacher-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="instructor")
    b = new_browser()
    assert b.login(email).status_code == 303
    return b


def _post(b: Browser, url: str, data: dict[str, str], page: str = "/courses") -> object:
    return b.post(url, data={"csrf_token": b.csrf(page)} | data)


def test_course_pages_from_creation_to_drill_down(new_browser, db: Database, code_of) -> None:
    teacher, student, outsider = _instructor(new_browser, db), new_browser(), new_browser()
    assert student.signup().status_code == 303 and outsider.signup().status_code == 303

    refused = _post(student, "/courses", {"title": "Mine"})
    assert refused.status_code == 403  # type: ignore[attr-defined]
    created = _post(teacher, "/courses", {"title": "Tensors 101", "timezone": "Europe/Paris"})
    assert created.status_code == 303  # type: ignore[attr-defined]
    course_url = created.headers["location"]  # type: ignore[attr-defined]
    page = teacher.get(course_url).text
    code = re.search(r'id="join-code">([^<]+)<', page)
    assert code and "Tensors 101" in page

    assert student.get(course_url).status_code == 404
    link = student.get(f"/courses/join?code={code.group(1)}")
    assert link.status_code == 200 and f'value="{code.group(1)}"' in link.text  # a GET never joins
    assert student.get(course_url).status_code == 404
    joined = _post(student, "/courses/join", {"code": code.group(1)})
    assert joined.status_code == 303 and joined.headers["location"] == course_url  # type: ignore[attr-defined]
    assert "Tensors 101" in student.get("/courses").text and "Tensors 101" in student.get("/account").text
    bad = _post(outsider, "/courses/join", {"code": "NOPE-NOPE"})
    assert bad.status_code == 404 and "No course has this join code" in bad.text  # type: ignore[attr-defined]

    now = utcnow()
    form = {
        "title": "Week 1",
        "problems": "add-tensors, sum-of-squares",
        "release_at": forms.field_value(now - timedelta(hours=1), "Europe/Paris"),
        "due_at": forms.field_value(now + timedelta(days=1), "Europe/Paris"),
        "late": f"{forms.field_value(now + timedelta(days=2), 'Europe/Paris')}, 50",
    }
    made = _post(teacher, f"{course_url}/assignments", form)
    assert made.status_code == 303  # type: ignore[attr-defined]
    assignment_url = made.headers["location"]  # type: ignore[attr-defined]
    missing = _post(teacher, f"{course_url}/assignments", form | {"problems": "no-such-problem"})
    assert missing.status_code == 422 and "no published problem" in missing.text  # type: ignore[attr-defined]

    done = student.submit("add-tensors", code_of("add-tensors"))
    assert student.verdict(done.json()["id"])["verdict"] == "accepted"
    mine = student.get(assignment_url).text
    assert 'id="countdown"' in mine and "100 % (on time)" in mine
    assert re.search(r'data-slug="add-tensors">.*?Solved.*?100.0 %', mine, re.S)
    assert re.search(r'data-slug="sum-of-squares">.*?Not started', mine, re.S)
    assert 'id="extension-form"' not in mine

    for url in (f"{course_url}/gradebook", f"{assignment_url}/regrades"):
        assert student.get(url).status_code == 404 and outsider.get(url).status_code == 404
    book = teacher.get(f"{course_url}/gradebook").text
    assert student.email and student.email in book and ">50.0<" in book
    student_id = re.search(r'data-student="(\d+)"', book)
    assert student_id
    drill = teacher.get(f"{course_url}/students/{student_id.group(1)}").text
    assert "return a + b" in drill and "Accepted" in drill
    assert student.get(f"{course_url}/students/{student_id.group(1)}").status_code == 404
    assert "No students match" in teacher.get(f"{course_url}/gradebook?q=nobody-here").text

    ext = _post(
        teacher,
        f"{assignment_url}/extensions",
        {"student": student_id.group(1), "due_at": forms.field_value(now + timedelta(days=5), "UTC")},
        page=assignment_url,
    )
    assert ext.status_code == 303  # type: ignore[attr-defined]
    assert student.email in teacher.get(assignment_url).text
    assert "add-tensors" in teacher.get(f"{assignment_url}/regrades").text


def test_instructor_manages_enrolment_on_the_course_page(new_browser, db: Database) -> None:
    teacher, co, student = _instructor(new_browser, db), _instructor(new_browser, db), new_browser()
    assert student.signup().status_code == 303
    course_url = _post(teacher, "/courses", {"title": "Roster course"}).headers["location"]  # type: ignore[attr-defined]
    first = re.search(r'id="join-code">([^<]+)<', teacher.get(course_url).text)
    assert first
    assert _post(teacher, f"{course_url}/join-code", {}).status_code == 303  # type: ignore[attr-defined]
    second = re.search(r'id="join-code">([^<]+)<', teacher.get(course_url).text)
    assert second and second.group(1) != first.group(1)
    assert _post(student, "/courses/join", {"code": first.group(1)}).status_code == 404  # type: ignore[attr-defined]

    roster = f"email,section\n{student.email},A\nnew-person@example.com,B\n".encode()
    page = teacher.post(
        f"{course_url}/roster",
        data={"csrf_token": teacher.csrf(course_url)},
        files={"file": ("roster.csv", roster, "text/csv")},
    )
    assert page.status_code == 200 and "Invited 2; skipped 0." in page.text
    invitation = re.search(r"<td>new-person@example.com</td><td><code>([^<]+)</code>", page.text)
    assert invitation
    assert student.get(course_url).status_code == 404  # invited, not enrolled
    assert "Roster course" in student.get("/courses").text  # ... until they accept on My courses
    mine = re.search(r'<input type="hidden" name="code" value="([^"]+)">', student.get("/courses").text)
    assert mine
    assert _post(student, "/courses/join", {"code": mine.group(1)}).status_code == 303  # type: ignore[attr-defined]
    assert "Roster course" in student.get(course_url).text

    assert co.email
    added = _post(teacher, f"{course_url}/instructors", {"email": co.email}, page=course_url)
    assert added.status_code == 303  # type: ignore[attr-defined]
    assert 'id="join-code"' in co.get(course_url).text  # a co-instructor sees the instructor panel

    student_id = re.search(r'data-student="(\d+)"', teacher.get(course_url).text)
    assert student_id
    blocked = _post(
        teacher, f"{course_url}/students/{student_id.group(1)}/status", {"status": "blocked"}, course_url
    )
    assert blocked.status_code == 303  # type: ignore[attr-defined]
    assert student.get(course_url).status_code == 404
    again = _post(student, "/courses/join", {"code": second.group(1)})
    assert again.status_code == 403 and "blocked" in again.text  # type: ignore[attr-defined]
