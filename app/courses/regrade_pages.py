"""The regrade pages (HTML): the assignment's problems to re-judge, a run's progress and dry run
(what would change and why, :mod:`app.courses.regrade_reasons`), and applying it.

A refused start or apply comes back on its page with the message and the choice kept (never an
error page that loses it).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request

from app.courses import forms, page_views, regrade_reasons, regrades
from app.courses.deps import InstructorAssignmentPage, RegradeId
from app.courses.models import Assignment, Course, Regrade
from app.kit.errors import AppError
from app.kit.web import CsrfProtected, SessionDep
from app.submissions.deps import DispatcherDep

router = APIRouter()


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
def regrade_list(request: Request, taught: InstructorAssignmentPage, session: SessionDep) -> Any:
    return _list(request, session, taught.course, taught.assignment)


@router.post("/{course_id}/assignments/{assignment_id}/regrades", dependencies=[CsrfProtected])
def regrade_start(
    request: Request,
    taught: InstructorAssignmentPage,
    session: SessionDep,
    dispatcher: DispatcherDep,
    problem: Annotated[str, Form(max_length=200)] = "",
) -> Any:
    course, assignment, user = taught.course, taught.assignment, taught.user
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
    request: Request, taught: InstructorAssignmentPage, regrade_id: RegradeId, session: SessionDep
) -> Any:
    course, assignment = taught.course, taught.assignment
    run = regrades.regrade_in(session, assignment, regrade_id)
    return _run_page(request, session, course, assignment, run)


@router.post(
    "/{course_id}/assignments/{assignment_id}/regrades/{regrade_id}/apply", dependencies=[CsrfProtected]
)
def regrade_apply(
    request: Request,
    taught: InstructorAssignmentPage,
    regrade_id: RegradeId,
    session: SessionDep,
    never_lower: Annotated[bool, Form()] = False,
) -> Any:
    course, assignment, user = taught.course, taught.assignment, taught.user
    run = regrades.regrade_in(session, assignment, regrade_id)
    try:
        regrades.apply(session, course, assignment, run, user, never_lower=never_lower)
    except AppError as exc:
        state = forms.FormState({"never_lower": "true" if never_lower else ""}).refuse(exc)
        return _run_page(request, session, course, assignment, run, state, status=exc.status_code)
    here = f"/courses/{course.id}/assignments/{assignment.id}/regrades/{run.id}"
    return page_views.notice(request, here, "Regrade applied.")
