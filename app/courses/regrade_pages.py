"""The regrade pages (HTML): the assignment's problems to re-judge, a run's progress and dry run
(what would change and why, :mod:`app.courses.regrade_reasons`), and applying it.

A refused start or apply comes back on its page with the message and the choice kept (never an
error page that loses it).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request

from app.accounts.deps import CurrentUser
from app.accounts.models import User
from app.courses import assignments, enrolment, forms, page_views, regrade_reasons, regrades
from app.courses.deps import AssignmentId, CourseId, RegradeId
from app.courses.models import Assignment, Course, Regrade
from app.kit.db import utcnow
from app.kit.errors import AppError
from app.kit.web import CsrfProtected, SessionDep
from app.submissions.deps import DispatcherDep

router = APIRouter()


def _target(session: SessionDep, course_id: int, assignment_id: int, user: User) -> tuple[Course, Assignment]:
    course = enrolment.course_for_instructor(session, course_id, user)
    return course, assignments.assignment_for(session, course, assignment_id, user, utcnow())


def _list(
    request: Request, session: SessionDep, course: Course, assignment: Assignment,
    state: forms.FormState | None = None, status: int = 200,
) -> Any:  # fmt: skip
    context = {
        "course": course,
        "assignment": assignment,
        "candidates": regrades.candidates(session, course, assignment),
        "forms": {"start": state} if state else {},
    }
    return page_views.page(request, "regrades.html", context, status_code=status)


@router.get("/{course_id}/assignments/{assignment_id}/regrades")
def regrade_list(
    request: Request, course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CurrentUser
) -> Any:
    course, assignment = _target(session, course_id, assignment_id, user)
    return _list(request, session, course, assignment)


@router.post("/{course_id}/assignments/{assignment_id}/regrades", dependencies=[CsrfProtected])
def regrade_start(
    request: Request,
    course_id: CourseId,
    assignment_id: AssignmentId,
    session: SessionDep,
    user: CurrentUser,
    dispatcher: DispatcherDep,
    problem: Annotated[str, Form(max_length=200)] = "",
) -> Any:
    course, assignment = _target(session, course_id, assignment_id, user)
    try:
        run, created = regrades.start(session, dispatcher, course, assignment, problem, user)
    except AppError as exc:
        state = forms.FormState({"problem": problem}).refuse(exc, "problem")
        return _list(request, session, course, assignment, state, status=exc.status_code)
    note = (
        "Regrade started: the submissions are being re-judged."
        if created
        else "This regrade was started before."
    )
    here = f"/courses/{course.id}/assignments/{assignment.id}/regrades/{run.id}"
    return page_views.notice(request, here, note)


def _run_page(
    request: Request, session: SessionDep, course: Course, assignment: Assignment, run: Regrade,
    state: forms.FormState | None = None, status: int = 200,
) -> Any:  # fmt: skip
    shown = regrades.view(session, course, assignment, run)
    why = regrade_reasons.reasons(session, run, [c["user_id"] for c in shown["changes"]])
    context = {
        "course": course,
        "assignment": assignment,
        "run": shown,
        "reasons": why,
        "forms": {"apply": state or forms.FormState()},
    }
    return page_views.page(request, "regrade.html", context, status_code=status)


@router.get("/{course_id}/assignments/{assignment_id}/regrades/{regrade_id}")
def regrade_page(
    request: Request,
    course_id: CourseId,
    assignment_id: AssignmentId,
    regrade_id: RegradeId,
    session: SessionDep,
    user: CurrentUser,
) -> Any:
    course, assignment = _target(session, course_id, assignment_id, user)
    run = regrades.regrade_in(session, assignment, regrade_id)
    return _run_page(request, session, course, assignment, run)


@router.post(
    "/{course_id}/assignments/{assignment_id}/regrades/{regrade_id}/apply", dependencies=[CsrfProtected]
)
def regrade_apply(
    request: Request,
    course_id: CourseId,
    assignment_id: AssignmentId,
    regrade_id: RegradeId,
    session: SessionDep,
    user: CurrentUser,
    never_lower: Annotated[bool, Form()] = False,
) -> Any:
    course, assignment = _target(session, course_id, assignment_id, user)
    run = regrades.regrade_in(session, assignment, regrade_id)
    try:
        regrades.apply(session, course, assignment, run, user, never_lower=never_lower)
    except AppError as exc:
        state = forms.FormState({"never_lower": "true" if never_lower else ""}).refuse(exc)
        return _run_page(request, session, course, assignment, run, state, status=exc.status_code)
    here = f"/courses/{course.id}/assignments/{assignment.id}/regrades/{run.id}"
    return page_views.notice(request, here, "Regrade applied.")
