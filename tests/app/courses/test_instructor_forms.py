"""Every instructor form keeps every value on an error and puts the message next to its field
(aria-invalid, aria-describedby), and nothing is stored: course create/edit, assignment
create/edit, extensions, the roster, co-instructors, joining."""

from __future__ import annotations

import html
import re
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from app.accounts.service import sign_up
from app.courses import forms
from app.courses.models import Assignment, Course, Extension
from app.kit.db import Database, utcnow
from tests.app.conftest import PASSWORD, Browser


def instructor(new_browser: Callable[[], Browser], db: Database) -> Browser:
    email = f"teacher-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="instructor")
    b = new_browser()
    assert b.login(email).status_code == 303
    b.email = email  # type: ignore[attr-defined]
    return b


def post(b: Browser, url: str, data: dict[str, Any], page: str = "/courses") -> Any:
    return b.post(url, data={"csrf_token": b.csrf(page)} | data)


def field(text: str, element_id: str) -> str:
    """The opening tag of the element with ``element_id`` (input, select or textarea)."""
    found = re.search(rf'<(input|select|textarea)\b[^>]*\bid="{re.escape(element_id)}"[^>]*>', text)
    assert found, f"no field #{element_id}"
    return found.group(0)


def value_of(text: str, element_id: str) -> str:
    tag = field(text, element_id)
    if tag.startswith("<textarea"):
        body = re.search(rf'id="{re.escape(element_id)}"[^>]*>(.*?)</textarea>', text, re.S)
        assert body
        return html.unescape(body.group(1))
    found = re.search(r'\bvalue="([^"]*)"', tag)
    return html.unescape(found.group(1)) if found else ""


def refused_here(text: str, element_id: str, words: str) -> None:
    """The field is marked invalid and described by its message, which says ``words``."""
    tag = field(text, element_id)
    assert 'aria-invalid="true"' in tag, tag
    assert f"{element_id}-error" in tag, tag
    message = re.search(rf'<p class="field-error" id="{re.escape(element_id)}-error">(.*?)</p>', text, re.S)
    assert message and words in html.unescape(message.group(1)), message and message.group(1)


def not_refused(text: str, element_id: str) -> None:
    assert 'aria-invalid="true"' not in field(text, element_id)


def count(db: Database, model: Any) -> int:
    with db.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def new_course(teacher: Browser, timezone: str = "UTC") -> str:
    made = post(teacher, "/courses", {"title": f"Course {uuid.uuid4().hex[:4]}", "timezone": timezone})
    assert made.status_code == 303
    return str(made.headers["location"])


def selected_problems(text: str) -> list[str]:
    select_tag = re.search(r'<select id="a-problems".*?</select>', text, re.S)
    assert select_tag
    return re.findall(r'<option value="([^"]+)" selected>', select_tag.group(0))


# --- the course form --------------------------------------------------------------------------------


def test_a_bad_timezone_keeps_title_term_and_timezone(new_browser, db: Database) -> None:
    teacher = instructor(new_browser, db)
    before = count(db, Course)
    page = post(
        teacher, "/courses", {"title": "Deep Learning", "term": "Spring 2027", "timezone": "Mars/Olympus"}
    )
    assert page.status_code == 422 and count(db, Course) == before
    text = page.text
    assert value_of(text, "course-title") == "Deep Learning"
    assert value_of(text, "course-term") == "Spring 2027"
    assert value_of(text, "course-tz") == "Mars/Olympus"
    refused_here(text, "course-tz", "Unknown timezone")
    not_refused(text, "course-title")
    assert 'href="#course-tz"' in text  # the summary links to the field


def test_a_missing_title_is_refused_next_to_the_title(new_browser, db: Database) -> None:
    teacher = instructor(new_browser, db)
    page = post(teacher, "/courses", {"title": "  ", "term": "Fall", "timezone": "Europe/Paris"})
    assert page.status_code == 422
    refused_here(page.text, "course-title", "title is required")
    assert value_of(page.text, "course-term") == "Fall" and value_of(page.text, "course-tz") == "Europe/Paris"
    control = post(teacher, "/courses", {"title": "Bad\u202etitle", "timezone": "UTC"})  # a bidi override
    assert control.status_code == 422
    refused_here(control.text, "course-title", "title")
    assert value_of(control.text, "course-title") == "Bad\u202etitle"


def test_the_course_edit_form_keeps_values_and_changes_nothing_on_an_error(new_browser, db: Database) -> None:
    teacher, student = instructor(new_browser, db), new_browser()
    assert student.signup().status_code == 303
    course = new_course(teacher)
    form = teacher.get(f"{course}/edit")
    assert form.status_code == 200 and value_of(form.text, "edit-tz") == "UTC"
    bad = post(
        teacher, f"{course}/edit", {"title": "Renamed", "term": "T2", "timezone": "Nowhere/City"}, course
    )
    assert bad.status_code == 422
    assert value_of(bad.text, "edit-title") == "Renamed" and value_of(bad.text, "edit-term") == "T2"
    refused_here(bad.text, "edit-tz", "Unknown timezone")
    assert "Renamed" not in teacher.get(course).text  # nothing was saved
    good = post(
        teacher, f"{course}/edit", {"title": "Renamed", "term": "T2", "timezone": "Asia/Tokyo"}, course
    )
    assert good.status_code == 303
    page = teacher.get(course).text
    assert "Renamed" in page and "Asia/Tokyo" in page
    assert student.get(f"{course}/edit").status_code == 404
    assert post(student, f"{course}/edit", {"title": "Mine"}).status_code == 404


# --- the assignment form ----------------------------------------------------------------------------


def assignment_form(now: Any, **changes: str) -> dict[str, Any]:
    return {
        "title": "Week 1",
        "problems": ["add-tensors", "sum-of-squares"],
        "release_at": forms.field_value(now - timedelta(hours=1), "UTC"),
        "due_at": forms.field_value(now + timedelta(days=1), "UTC"),
        "late": f"{forms.field_value(now + timedelta(days=2), 'UTC')}, 50",
        "after_last": "closed",
    } | changes


def test_an_unknown_slug_keeps_all_the_assignment_fields(new_browser, db: Database) -> None:
    teacher = instructor(new_browser, db)
    course = new_course(teacher)
    before = count(db, Assignment)
    sent = assignment_form(utcnow())
    sent["problems"] = ["sum-of-squares", "no-such-problem", "add-tensors"]
    page = post(teacher, f"{course}/assignments", sent, course)
    assert page.status_code == 422 and count(db, Assignment) == before
    text = page.text
    assert value_of(text, "a-title") == "Week 1"
    assert value_of(text, "a-release") == sent["release_at"] and value_of(text, "a-due") == sent["due_at"]
    assert value_of(text, "a-late") == sent["late"]
    assert re.search(r'<option value="closed" selected>', text)
    assert selected_problems(text) == ["sum-of-squares", "add-tensors"]  # the known ones, in order
    refused_here(text, "a-problems", "no published problem called 'no-such-problem'")


def test_typed_slugs_still_work_and_bad_times_are_all_shown_at_once(new_browser, db: Database) -> None:
    teacher = instructor(new_browser, db)
    course = new_course(teacher)
    now = utcnow()
    typed = post(
        teacher, f"{course}/assignments", assignment_form(now, problems="add-tensors, sum-of-squares"), course
    )
    assert typed.status_code == 303  # the API's comma-separated text still works
    both = post(
        teacher, f"{course}/assignments", assignment_form(now, release_at="soon", late="tomorrow"), course
    )
    assert both.status_code == 422
    refused_here(both.text, "a-release", "is not a date and time")
    refused_here(both.text, "a-late", "Late window line 1")
    assert value_of(both.text, "a-release") == "soon" and value_of(both.text, "a-late") == "tomorrow"
    assert value_of(both.text, "a-title") == "Week 1"
    order = post(
        teacher,
        f"{course}/assignments",
        assignment_form(now, due_at=forms.field_value(now - timedelta(days=1), "UTC")),
        course,
    )
    assert order.status_code == 422
    refused_here(order.text, "a-due", "due_at must come after release_at")
    empty = post(teacher, f"{course}/assignments", assignment_form(now, problems=""), course)
    assert empty.status_code == 422
    refused_here(empty.text, "a-problems", "problems must list")
    twice = post(
        teacher, f"{course}/assignments", assignment_form(now, problems="add-tensors add-tensors"), course
    )
    refused_here(twice.text, "a-problems", "twice")
    window = post(
        teacher,
        f"{course}/assignments",
        assignment_form(now, late=f"{forms.field_value(now, 'UTC')}, 50"),
        course,
    )
    refused_here(window.text, "a-late", "must come after the due time")
    after = post(teacher, f"{course}/assignments", assignment_form(now, after_last="never"), course)
    refused_here(after.text, "a-after", "after_last")


def test_the_assignment_edit_form_keeps_values_then_saves(new_browser, db: Database) -> None:
    teacher, student = instructor(new_browser, db), new_browser()
    assert student.signup().status_code == 303
    course = new_course(teacher)
    now = utcnow()
    made = post(teacher, f"{course}/assignments", assignment_form(now), course)
    url = made.headers["location"]
    form = teacher.get(f"{url}/edit")
    assert form.status_code == 200
    assert value_of(form.text, "a-title") == "Week 1"
    assert selected_problems(form.text) == ["add-tensors", "sum-of-squares"]
    assert value_of(form.text, "a-late").endswith(", 50")
    changed = assignment_form(now, title="Week one")
    changed["problems"] = ["sum-of-squares", "nope"]
    bad = post(teacher, f"{url}/edit", changed, url)
    assert bad.status_code == 422
    assert value_of(bad.text, "a-title") == "Week one" and selected_problems(bad.text) == ["sum-of-squares"]
    refused_here(bad.text, "a-problems", "'nope'")
    assert "Week one" not in teacher.get(url).text
    changed["problems"] = ["sum-of-squares", "add-tensors"]
    assert post(teacher, f"{url}/edit", changed, url).status_code == 303
    again = teacher.get(f"{url}/edit").text
    assert value_of(again, "a-title") == "Week one"
    assert selected_problems(again) == ["sum-of-squares", "add-tensors"]  # the new order
    assert student.get(f"{url}/edit").status_code == 404


# --- extensions, roster, co-instructors, joining -----------------------------------------------------


def test_an_extension_error_keeps_the_student_and_the_dates(new_browser, db: Database) -> None:
    teacher, student = instructor(new_browser, db), new_browser()
    assert student.signup().status_code == 303
    course = new_course(teacher)
    code = re.search(r'id="join-code">([^<]+)<', teacher.get(course).text)
    assert code and post(student, "/courses/join", {"code": code.group(1)}).status_code == 303
    url = post(teacher, f"{course}/assignments", assignment_form(utcnow()), course).headers["location"]
    sid = re.search(r'<option value="(\d+)">' + re.escape(student.email), teacher.get(url).text)  # type: ignore[attr-defined]
    assert sid
    due = forms.field_value(utcnow() + timedelta(days=4), "UTC")
    bad = post(
        teacher, f"{url}/extensions", {"student": sid.group(1), "due_at": due, "late": "later, 50"}, url
    )
    assert bad.status_code == 422 and count(db, Extension) == 0
    assert value_of(bad.text, "x-due") == due and value_of(bad.text, "x-late") == "later, 50"
    assert re.search(rf'<option value="{sid.group(1)}" selected>', bad.text)
    refused_here(bad.text, "x-late", "Late window line 1")
    stranger = post(teacher, f"{url}/extensions", {"student": "999999", "due_at": due}, url)
    assert stranger.status_code == 422
    refused_here(stranger.text, "x-student", "not in this course")
    assert value_of(stranger.text, "x-due") == due
    assert (
        post(teacher, f"{url}/extensions", {"student": sid.group(1), "due_at": due}, url).status_code == 303
    )


def test_roster_co_instructor_and_join_errors_keep_what_was_typed(new_browser, db: Database) -> None:
    teacher, student = instructor(new_browser, db), new_browser()
    assert student.signup().status_code == 303
    course = new_course(teacher)
    empty = post(teacher, f"{course}/roster", {"text": "   "}, course)
    assert empty.status_code == 422
    refused_here(empty.text, "roster-text", "Choose a CSV file")
    rows = "email\n" + "\n".join(f"s{i}@example.com" for i in range(5001))
    many = post(teacher, f"{course}/roster", {"text": rows}, course)
    assert many.status_code == 422 and value_of(many.text, "roster-text") == rows
    refused_here(many.text, "roster-text", "limited to")
    nobody = post(teacher, f"{course}/instructors", {"email": "ghost@example.com"}, course)
    assert nobody.status_code == 404 and value_of(nobody.text, "instructor-email") == "ghost@example.com"
    refused_here(nobody.text, "instructor-email", "no account")
    learner = post(teacher, f"{course}/instructors", {"email": student.email}, course)  # type: ignore[attr-defined]
    refused_here(learner.text, "instructor-email", "instructor account")
    joined = post(student, "/courses/join", {"code": "NOPE-NOPE"})
    assert joined.status_code == 404 and value_of(joined.text, "join-code") == "NOPE-NOPE"
    refused_here(joined.text, "join-code", "No course has this join code")
    assert 'id="course-error"' in joined.text


def test_instructor_pages_show_times_as_utc_for_the_script_and_carry_no_inline_script(
    new_browser, db: Database
) -> None:
    teacher = instructor(new_browser, db)
    course = new_course(teacher, "America/New_York")
    url = post(teacher, f"{course}/assignments", assignment_form(utcnow()), course).headers["location"]
    for page in (course, url, f"{url}/edit", f"{course}/edit", "/courses"):
        text = teacher.get(page).text
        assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", text) == [], page  # CSP 'self': files only
        if page in (course, url):
            times = re.findall(r'<time datetime="([^"]+)" data-local(?: id="[^"]+")?>([^<]+)</time>', text)
            assert times, page
            for iso, shown in times:
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", iso) and shown.endswith(" UTC"), (
                    iso,
                    shown,
                )
            assert "/static/js/local-times" in text
    course_page = teacher.get(course).text
    assert 'id="copy-join"' in course_page and "hidden" in field_button(course_page, "copy-join")
    assert "/static/js/course-copy" in course_page and 'id="copy-status" role="status"' in course_page


def field_button(text: str, element_id: str) -> str:
    found = re.search(rf'<button\b[^>]*\bid="{element_id}"[^>]*>', text)
    assert found
    return found.group(0)
