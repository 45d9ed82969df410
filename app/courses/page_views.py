"""How the course pages render: the notice after a redirect, and the pages that forms return to
with what was typed kept and each refusal next to its field (:class:`forms.FormState`)."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import assignments, enrolment, forms, invitations, picker
from app.courses.models import Assignment, Course
from app.kit.db import utcnow
from app.kit.links import absolute_url
from app.kit.web import render

NOTICE_KEY = "course_notice"
FormStates = dict[str, forms.FormState]


def notice(request: Request, url: str, text: str) -> RedirectResponse:
    request.session[NOTICE_KEY] = text
    return RedirectResponse(url, status_code=303)


def page(request: Request, template: str, context: dict[str, Any], status_code: int = 200) -> Any:
    context = {
        "notice": request.session.pop(NOTICE_KEY, None),
        "shown": forms.shown,
        "utc": forms.utc_text,
        "iso_utc": forms.iso_utc,
        "zones": forms.ZONES,
        "forms": {},
    } | context
    return render(request, f"courses/{template}", context, status_code=status_code)


def status_of(states: FormStates | None, status: int = 200) -> int:
    """A refused form's page is a 422 unless the refusal had its own status (404, 409, ...)."""
    refused = states and any(s.errors for s in states.values())
    return 422 if refused and status == 200 else status


def my_courses(
    request: Request, session: Session, user: User, states: FormStates | None = None, status: int = 200
) -> Any:
    context = {
        "rows": enrolment.my_courses(session, user),
        "invitations": invitations.my_invitations(session, user),
        "can_create": user.is_staff,
        "forms": states or {},
    }
    return page(request, "list.html", context, status_code=status)


def assignment_form(course: Course, assignment: Assignment | None = None) -> forms.FormState:
    """The assignment form's fields: empty for a new one, the stored values to edit one."""
    if assignment is None:
        return forms.FormState({"after_last": "zero"})
    late = "\n".join(
        f"{forms.field_value(forms.as_time(w['until']), course.timezone)}, {w['credit']:g}"
        for w in assignment.late or []
    )
    return forms.FormState(
        {
            "title": assignment.title,
            "problems": "",  # filled by the caller from the assignment's problems
            "release_at": forms.field_value(assignment.release_at, course.timezone),
            "due_at": forms.field_value(assignment.due_at, course.timezone),
            "late": late,
            "after_last": assignment.after_last,
        }
    )


def picker_context(session: Session, course: Course, state: forms.FormState) -> dict[str, Any]:
    """The problem picker's choices and the chosen ones, in order (kept on an error)."""
    wanted = forms.slugs(state.value("problems"))
    return {"choices": picker.every_choice(session, course), "chosen": picker.chosen(session, course, wanted)}


def course_page(
    request: Request,
    session: Session,
    user: User,
    course_id: int,
    *,
    states: FormStates | None = None,
    report: invitations.RosterReport | None = None,
    status: int = 200,
) -> Any:
    course = enrolment.course_for_member(session, course_id, user)
    instructor = enrolment.is_instructor(session, course, user)
    listed = assignments.visible_assignments(session, course, user, utcnow())
    states = dict(states or {})
    context: dict[str, Any] = {
        "course": course,
        "instructor": instructor,
        "assignments": [(a, assignments.assignment_problems(session, a)) for a in listed],
        "report": report,
    }
    if instructor:
        new = states.setdefault("assignment", assignment_form(course))
        context["members"] = enrolment.members(session, course)
        context["invitations"] = enrolment.invitations(session, course)
        context["join_url"] = absolute_url(request.app.state.settings, "/courses/join", code=course.join_code)
        context["picker"] = picker_context(session, course, new)
    context["forms"] = states
    return page(request, "course.html", context, status_code=status_of(states, status))
