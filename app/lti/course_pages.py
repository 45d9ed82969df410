"""A course's LMS page (``/courses/<id>/lti``) and its API twins (``/api/v1/courses/<id>/lti/…``):
the LMS courses linked to it, "grades waiting to sync" with a resend button, and the roster sync.

Instructors of the course only (404 for anybody else, as every instructor page).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from app.accounts.deps import CurrentUser
from app.accounts.models import User
from app.courses import enrolment
from app.courses.deps import CourseId, CourseTeacher, CourseWriter
from app.courses.models import Course
from app.kit.db import on_commit
from app.kit.errors import NotFound
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, get_database, render
from app.lti import passback, repository, roster
from app.lti.models import LtiGradeSync
from app.lti.worker import PassbackWorker

router = APIRouter(tags=["course pages"])
api_router = APIRouter(prefix="/api/v1/courses", tags=["courses"])

NOTICE_KEY = "lti_course_notice"


def _wake(request: Request) -> None:
    worker: PassbackWorker | None = getattr(request.app.state, "lti_worker", None)
    if worker is not None:
        worker.wake()


def _course(request: Request, course_id: int, user: User) -> Course:
    with get_database(request).transaction() as session:
        return enrolment.course_for_instructor(session, course_id, user)


@router.get("/courses/{course_id}/lti")
def lti_page(request: Request, course_id: CourseId, session: SessionDep, user: CurrentUser) -> Any:
    course = enrolment.course_for_instructor(session, course_id, user)
    context = {
        "course": course,
        "contexts": repository.course_contexts(session, course.id),
        "waiting": passback.waiting(session, course.id),
        "notice": request.session.pop(NOTICE_KEY, None),
    }
    return render(request, "lti/course.html", context)


@router.post("/courses/{course_id}/lti/grades/{sync_id}/resend", dependencies=[CsrfProtected])
def resend_one(
    request: Request, course_id: CourseId, sync_id: int, session: SessionDep, user: CurrentUser
) -> Any:
    course = enrolment.course_for_instructor(session, course_id, user)
    if not passback.resend(session, sync_id, course.id):
        raise NotFound("There is no such grade waiting in this course.")
    on_commit(session, lambda: _wake(request))
    request.session[NOTICE_KEY] = "The score will be sent again now."
    return RedirectResponse(f"/courses/{course.id}/lti", status_code=303)


@router.post("/courses/{course_id}/lti/grades/resend", dependencies=[CsrfProtected])
def resend_all(request: Request, course_id: CourseId, session: SessionDep, user: CurrentUser) -> Any:
    course = enrolment.course_for_instructor(session, course_id, user)
    count = 0
    for row in passback.waiting(session, course.id):
        count += passback.resend(session, row.id, course.id)
    on_commit(session, lambda: _wake(request))
    request.session[NOTICE_KEY] = f"{count} score(s) will be sent again now."
    return RedirectResponse(f"/courses/{course.id}/lti", status_code=303)


@router.post("/courses/{course_id}/lti/roster", dependencies=[CsrfProtected])
def roster_page(request: Request, course_id: CourseId, settings: SettingsDep, user: CurrentUser) -> Any:
    course = _course(request, course_id, user)
    result = roster.sync(get_database(request), settings.secret_key, course)
    text = (
        f"Roster synced: {result.students} student(s), {result.instructors} instructor(s)"
        f"{f', {result.skipped} inactive skipped' if result.skipped else ''}."
    )
    if result.errors:
        text += " Some LMS courses could not be read: " + "; ".join(result.errors)
    request.session[NOTICE_KEY] = text
    return RedirectResponse(f"/courses/{course.id}/lti", status_code=303)


@api_router.post("/{course_id}/lti/roster-sync")
def roster_api(
    request: Request, course_id: CourseId, settings: SettingsDep, user: CourseWriter
) -> dict[str, Any]:
    """Bring the linked LMS courses' rosters into the course (Names and Role Provisioning Services)."""
    course = _course(request, course_id, user)
    result = roster.sync(get_database(request), settings.secret_key, course)
    return {
        "students": result.students,
        "instructors": result.instructors,
        "skipped": result.skipped,
        "errors": result.errors,
    }


@api_router.get("/{course_id}/lti/grade-syncs")
def grade_syncs_api(course_id: CourseId, session: SessionDep, user: CourseTeacher) -> dict[str, Any]:
    """Scores not yet accepted by the LMS (pending or failed), with their last error."""
    course = enrolment.course_for_instructor(session, course_id, user)
    rows = passback.waiting(session, course.id)
    return {
        "items": [
            {
                "id": r.id,
                "email": r.email,
                "assignment": r.assignment,
                "status": r.status,
                "attempts": r.attempts,
                "last_error": r.last_error,
                "next_attempt_at": r.next_attempt_at.isoformat(),
            }
            for r in rows
        ]
    }


@api_router.post("/{course_id}/lti/grade-syncs/{sync_id}/resend")
def resend_api(
    request: Request, course_id: CourseId, sync_id: int, session: SessionDep, user: CourseWriter
) -> dict[str, Any]:
    """Send one waiting score again now."""
    course = enrolment.course_for_instructor(session, course_id, user)
    if not passback.resend(session, sync_id, course.id):
        raise NotFound("There is no such grade waiting in this course.")
    on_commit(session, lambda: _wake(request))
    row = session.get(LtiGradeSync, sync_id)
    return {"id": sync_id, "status": row.status if row else "pending"}
