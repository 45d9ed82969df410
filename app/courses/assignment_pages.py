"""The assignment pages (HTML): create and edit an assignment, its page, extensions, and the
problem picker's search (JSON for ``course-picker.js``).

Every form comes back with everything typed kept and each refusal next to its field
(:class:`app.courses.forms.FormState`); nothing is stored unless every field holds.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request

from app.accounts.deps import CurrentUser
from app.accounts.models import User
from app.courses import assignments, enrolment, forms, page_views, picker
from app.courses.deps import AssignmentId, CourseId, InstructorAssignmentPage
from app.courses.models import Assignment, Course
from app.kit.db import utcnow
from app.kit.errors import AppError
from app.kit.web import CsrfProtected, SessionDep

router = APIRouter()

Field = Annotated[str, Form(max_length=4000)]  # the services hold the real limits, named per field
Problems = Annotated[list[str] | None, Form()]


def _form(
    title: str, problems: list[str] | None, release_at: str, due_at: str, late: str, after_last: str
) -> forms.FormState:
    slugs = forms.slugs([p[:4000] for p in (problems or [])[: assignments.MAX_PROBLEMS * 2]])
    return forms.FormState(
        {"title": title, "problems": " ".join(slugs), "release_at": release_at, "due_at": due_at,
         "late": late, "after_last": after_last}
    )  # fmt: skip


def _checked(session: SessionDep, course: Course, state: forms.FormState) -> assignments.Checked | None:
    """The form's fields checked: the page's own (times typed in the course's timezone, late windows
    one per line) together, then the assignment's rules; None with ``state`` holding the refusals."""
    tz = course.timezone
    release = forms.checked(
        state, "release_at", lambda: forms.local_time(state.value("release_at"), tz, "release_at")
    )
    due = forms.checked(state, "due_at", lambda: forms.local_time(state.value("due_at"), tz, "due_at"))
    late = forms.checked(state, "late", lambda: forms.late_windows(state.value("late"), tz))
    for name, value in (("release_at", release), ("due_at", due)):
        if value is None and name not in state.errors:
            state.errors[name] = "Choose a date and time."
    if state.errors:
        return None
    try:
        return assignments.check_fields(
            session, course, title=state.value("title"), problem_slugs=forms.slugs(state.value("problems")),
            release_at=release, due_at=due, late=late, after_last=state.value("after_last"),
        )  # fmt: skip
    except AppError as exc:
        state.refuse(exc)
        return None


def _instructs(session: SessionDep, course_id: int, user: User) -> Course:
    return enrolment.course_for_instructor(session, course_id, user)


@router.get("/{course_id}/problem-choices")
def problem_choices(
    course_id: CourseId, session: SessionDep, user: CurrentUser, q: Annotated[str, Query(max_length=100)] = ""
) -> dict[str, Any]:
    """The picker's search: the problems this course's assignments may hold (its instructors only)."""
    course = _instructs(session, course_id, user)
    return {"choices": [c.as_dict() for c in picker.search(session, course, q)]}


@router.post("/{course_id}/assignments", dependencies=[CsrfProtected])
def create_assignment(
    request: Request,
    course_id: CourseId,
    session: SessionDep,
    user: CurrentUser,
    title: Field = "",
    problems: Problems = None,
    release_at: Field = "",
    due_at: Field = "",
    late: Field = "",
    after_last: Field = "zero",
) -> Any:
    course = _instructs(session, course_id, user)
    state = _form(title, problems, release_at, due_at, late, after_last)
    checked = _checked(session, course, state)
    if checked is None:
        return page_views.course_page(request, session, user, course.id, states={"assignment": state})
    assignment = assignments.create_assignment(
        session, course, title=checked.title, problem_slugs=[p.slug for p in checked.problems],
        release_at=checked.release, due_at=checked.due, late=checked.late, after_last=checked.after_last,
    )  # fmt: skip
    return page_views.notice(
        request, f"/courses/{course.id}/assignments/{assignment.id}", "Assignment created."
    )


def _edit_page(
    request: Request, session: SessionDep, course: Course, assignment: Assignment,
    state: forms.FormState | None = None,
) -> Any:  # fmt: skip
    if state is None:
        state = page_views.assignment_form(course, assignment)
        state.values["problems"] = " ".join(
            p.slug for p in assignments.assignment_problems(session, assignment)
        )
    context = {
        "course": course,
        "assignment": assignment,
        "forms": {"assignment": state},
        "picker": page_views.picker_context(session, course, state),
    }
    return page_views.page(
        request, "assignment_edit.html", context, status_code=page_views.status_of({"a": state})
    )


@router.get("/{course_id}/assignments/{assignment_id}/edit")
def edit_assignment_page(request: Request, taught: InstructorAssignmentPage, session: SessionDep) -> Any:
    return _edit_page(request, session, taught.course, taught.assignment)


@router.post("/{course_id}/assignments/{assignment_id}/edit", dependencies=[CsrfProtected])
def edit_assignment(
    request: Request,
    taught: InstructorAssignmentPage,
    session: SessionDep,
    title: Field = "",
    problems: Problems = None,
    release_at: Field = "",
    due_at: Field = "",
    late: Field = "",
    after_last: Field = "zero",
) -> Any:
    course, assignment = taught.course, taught.assignment
    state = _form(title, problems, release_at, due_at, late, after_last)
    checked = _checked(session, course, state)
    if checked is None:
        return _edit_page(request, session, course, assignment, state)
    assignments.update_assignment(session, assignment, checked)
    return page_views.notice(
        request, f"/courses/{course.id}/assignments/{assignment.id}", "Assignment saved."
    )


# --- an assignment --------------------------------------------------------------------------------


def _assignment_page(
    request: Request, session: SessionDep, user: User, course_id: int, assignment_id: int,
    *, extension: forms.FormState | None = None,
) -> Any:  # fmt: skip
    now = utcnow()
    course = enrolment.course_for_member(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, now)
    instructor = enrolment.is_instructor(session, course, user)
    states = {"extension": extension or forms.FormState()}
    context: dict[str, Any] = {
        "course": course,
        "assignment": assignment,
        "instructor": instructor,
        "problems": assignments.assignment_problems(session, assignment),
        "forms": states,
    }
    if instructor:
        context["extensions"] = assignments.extensions_with_students(session, assignment)
        context["students"] = [(m, u) for m, u in enrolment.members(session, course) if m.role == "student"]
    else:
        mine = assignments.student_view(session, assignment, user)
        credit, until = mine.dates.window_at(now)
        context |= {"mine": mine, "credit_now": credit, "window_until": until, "now": now}
    return page_views.page(request, "assignment.html", context, status_code=page_views.status_of(states))


@router.get("/{course_id}/assignments/{assignment_id}")
def assignment_page(
    request: Request, course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CurrentUser
) -> Any:
    return _assignment_page(request, session, user, course_id, assignment_id)


@router.post("/{course_id}/assignments/{assignment_id}/extensions", dependencies=[CsrfProtected])
def set_extension(
    request: Request,
    taught: InstructorAssignmentPage,
    session: SessionDep,
    student: Annotated[str, Form(max_length=20)] = "",
    release_at: Field = "",
    due_at: Field = "",
    late: Field = "",
) -> Any:
    course, assignment, user = taught.course, taught.assignment, taught.user
    state = forms.FormState({"student": student, "release_at": release_at, "due_at": due_at, "late": late})
    tz = course.timezone
    release = forms.checked(state, "release_at", lambda: forms.local_time(release_at, tz, "release_at"))
    due = forms.checked(state, "due_at", lambda: forms.local_time(due_at, tz, "due_at"))
    windows = forms.checked(state, "late", lambda: forms.late_windows(late, tz) if late.strip() else None)
    if not student.strip().isdigit() or not 1 <= int(student) <= 2**31 - 1:
        state.errors["student"] = "Choose a student of this course."
    if not state.errors:
        try:
            assignments.set_extension(
                session, assignment, int(student), release_at=release, due_at=due, late=windows
            )
        except AppError as exc:
            state.refuse(exc, "student" if exc.status_code == 404 else "form")
    if state.errors:
        return _assignment_page(request, session, user, course.id, assignment.id, extension=state)
    return page_views.notice(request, f"/courses/{course.id}/assignments/{assignment.id}", "Extension saved.")
