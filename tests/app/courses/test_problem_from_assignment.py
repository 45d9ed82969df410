"""``/problems/<slug>?assignment=<id>``: the assignment's deadline and a way back, for the course's
members who may see the assignment, on a problem it holds; anything else is ignored and says nothing."""

from __future__ import annotations

import re
from datetime import timedelta

from app.courses import forms
from app.kit.db import Database, utcnow
from tests.app.courses.test_instructor_forms import assignment_form, instructor, new_course, post

BANNER = 'id="from-assignment"'


def _join(b, teacher, course: str) -> None:
    code = re.search(r'id="join-code">([^<]+)<', teacher.get(course).text)
    assert code and post(b, "/courses/join", {"code": code.group(1)}).status_code == 303


def test_the_deadline_and_the_way_back_for_members_only(new_browser, db: Database) -> None:
    teacher, student, outsider, other_teacher = (
        instructor(new_browser, db), new_browser(), new_browser(), instructor(new_browser, db),
    )  # fmt: skip
    assert student.signup().status_code == 303 and outsider.signup().status_code == 303
    course = new_course(teacher, "Europe/Paris")
    _join(student, teacher, course)
    now = utcnow()
    open_url = post(teacher, f"{course}/assignments", assignment_form(now), course).headers["location"]
    aid = open_url.rsplit("/", 1)[1]
    later = assignment_form(now, release_at=forms.field_value(now + timedelta(days=3), "UTC"),
                            due_at=forms.field_value(now + timedelta(days=4), "UTC"), late="")  # fmt: skip
    later_id = post(teacher, f"{course}/assignments", later, course).headers["location"].rsplit("/", 1)[1]

    page = student.get(f"/problems/add-tensors?assignment={aid}")
    assert page.status_code == 200 and BANNER in page.text
    assert f'href="{open_url}" id="back-to-assignment"' in page.text
    due = re.search(r'<time datetime="([^"]+)" data-local id="assignment-due">([^<]+)</time>', page.text)
    assert (
        due and due.group(1).endswith("Z") and due.group(2).endswith("UTC")
    )  # UTC text, script makes it local
    assert "50 % credit until" in page.text and "100 % (on time)" in page.text
    assert "/static/js/local-times" in page.text
    assert f"?assignment={aid}" in student.get(open_url).text  # the assignment's links carry it

    teacher_view = teacher.get(f"/problems/sum-of-squares?assignment={aid}")
    assert BANNER in teacher_view.text and "You teach this course" in teacher_view.text

    ignored = [
        (outsider, f"/problems/add-tensors?assignment={aid}"),  # not in the course
        (other_teacher, f"/problems/add-tensors?assignment={aid}"),  # another course's instructor
        (student, f"/problems/add-tensors?assignment={later_id}"),  # not released to this student
        (student, f"/problems/scale-rows?assignment={aid}"),  # a problem the assignment does not hold
        (new_browser(), f"/problems/add-tensors?assignment={aid}"),  # signed out
    ]
    for junk in (
        "abc",
        "-1",
        "0",
        "1e3",
        "99999999999",
        "\u0661",
        f"{aid}.0",
        f" {aid}x",
        "%00",
        "2147483648",
    ):
        ignored.append((student, f"/problems/add-tensors?assignment={junk}"))
    for who, url in ignored:
        answer = who.get(url)
        assert answer.status_code == 200, url
        assert BANNER not in answer.text and "back-to-assignment" not in answer.text, url

    assert post(student, f"{course}/leave", {}, course).status_code == 303
    assert BANNER not in student.get(f"/problems/add-tensors?assignment={aid}").text  # left: ignored
