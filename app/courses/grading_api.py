"""``/api/v1/courses/{id}/…`` for instructors grading a class: the gradebook (a page, CSV, XLSX),
a student's attempts, similarity across the class, and regrades of an assignment's problem (JSON).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.courses import enrolment, gradebook, regrades, similarity
from app.courses.api_common import ERRORS, ROOT, page_size
from app.courses.deps import (
    CourseId,
    CourseTeacher,
    InstructorAssignment,
    InstructorAssignmentWriter,
    RegradeId,
    UserId,
)
from app.kit.paging import next_url
from app.kit.web import PageAfter, PageLimit, SessionDep, SettingsDep
from app.submissions.deps import DispatcherDep

router = APIRouter()  # under app.courses.api's prefix and tags


@router.get("/{course_id}/students/{user_id}", responses=ERRORS, summary="A student's attempts (drill-down)")
def student_attempts(
    course_id: CourseId,
    user_id: UserId,
    session: SessionDep,
    user: CourseTeacher,
    settings: SettingsDep,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """The student's score per assignment and credit per problem (all of them, on every page),
    and a page of their `attempts` that are the course's — on an assignment's problems, inside its
    window and while they were enrolled — newest first, each with its code and per-case results;
    follow `next` for older attempts."""
    course = enrolment.course_for_instructor(session, course_id, user)
    size = page_size(limit, settings)
    view = gradebook.drill_down(session, course, user_id, after=after, limit=size)
    return {
        "student": {"id": view.student_id, "email": view.email, "section": view.section},
        "assignments": [
            {
                "id": a.id,
                "title": a.title,
                "score": score,
                "problems": [{"slug": p.slug, "title": p.title, "credit": p.credit} for p in problems],
            }
            for a, score, problems in view.assignments
        ],
        "attempts": view.attempts,
        "next": next_url(f"{ROOT}/{course.id}/students/{user_id}", {"limit": size}, view.cursor),
    }


Filter = Annotated[str | None, Query(max_length=100)]


@router.get("/{course_id}/gradebook", responses=ERRORS, summary="The gradebook (instructors)")
def get_gradebook(
    course_id: CourseId,
    session: SessionDep,
    user: CourseTeacher,
    settings: SettingsDep,
    section: Filter = None,
    q: Filter = None,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """One page of students (by email), each with a score per assignment and a total; `section`
    and `q` (part of the email) filter them. Follow `next` for more; the downloads are whole."""
    course = enrolment.course_for_instructor(session, course_id, user)
    size = page_size(limit, settings)
    book, cursor = gradebook.page(session, course, section=section, q=q, after=after, limit=size)
    params = {"section": section, "q": q, "limit": size}
    return gradebook.as_json(book) | {"next": next_url(f"{ROOT}/{course.id}/gradebook", params, cursor)}


def _download(course_id: int, session: SessionDep, user: Any, fmt: str) -> Response:
    course = enrolment.course_for_instructor(session, course_id, user)
    content, media_type, ext = gradebook.export(gradebook.build(session, course), fmt)
    name = f"course-{course.id}-gradebook.{ext}"
    return Response(
        content, media_type=media_type, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@router.get(
    "/{course_id}/gradebook.csv",
    responses=ERRORS | {200: {"content": {"text/csv": {}}, "description": "UTF-8 CSV with a BOM"}},
    summary="The gradebook as CSV",
)
def gradebook_csv(course_id: CourseId, session: SessionDep, user: CourseTeacher) -> Response:
    return _download(course_id, session, user, "csv")


@router.get("/{course_id}/gradebook.xlsx", responses=ERRORS, summary="The gradebook as XLSX")
def gradebook_xlsx(course_id: CourseId, session: SessionDep, user: CourseTeacher) -> Response:
    return _download(course_id, session, user, "xlsx")


@router.get(
    "/{course_id}/assignments/{assignment_id}/similarity",
    responses=ERRORS,
    summary="Pairs of students' solutions ranked by similarity (instructors)",
)
def get_similarity(taught: InstructorAssignment, session: SessionDep) -> dict[str, Any]:
    return similarity.as_json(similarity.report(session, taught.course, taught.assignment))


class RegradeIn(BaseModel):
    problem: str = Field(max_length=200, description="The slug of one of the assignment's problems")


class ApplyIn(BaseModel):
    never_lower: bool = Field(default=False, description="Keep a student's old credit when it was higher")


REGRADE_NOTE = (
    "Re-judges the course's students' counted submissions of the problem on its current version "
    "(through the normal judge), then `GET` shows progress (`judged`/`total`) and, once `status` is "
    "`ready`, the dry run: exactly the students whose credit would change, from what to what."
)


@router.post(
    "/{course_id}/assignments/{assignment_id}/regrades",
    status_code=201,
    responses=ERRORS | {200: {"description": "This target was started before: the same run"}},
    summary="Start a regrade of one assignment problem on its current version",
    description=REGRADE_NOTE,
)
def start_regrade(
    taught: InstructorAssignmentWriter,
    body: RegradeIn,
    response: Response,
    session: SessionDep,
    dispatcher: DispatcherDep,
) -> dict[str, Any]:
    course, assignment = taught.course, taught.assignment
    regrade, created = regrades.start(session, dispatcher, course, assignment, body.problem, taught.user)
    if not created:
        response.status_code = 200
    return regrades.view(session, course, assignment, regrade)


@router.get(
    "/{course_id}/assignments/{assignment_id}/regrades/{regrade_id}",
    responses=ERRORS,
    summary="A regrade: progress and the dry run (or what was applied)",
)
def get_regrade(taught: InstructorAssignment, regrade_id: RegradeId, session: SessionDep) -> dict[str, Any]:
    course, assignment = taught.course, taught.assignment
    return regrades.view(session, course, assignment, regrades.regrade_in(session, assignment, regrade_id))


@router.post(
    "/{course_id}/assignments/{assignment_id}/regrades/{regrade_id}/apply",
    responses=ERRORS | {409: {"description": "Still judging (`conflict`)"}},
    summary="Apply a regrade (idempotent)",
)
def apply_regrade(
    taught: InstructorAssignmentWriter, regrade_id: RegradeId, body: ApplyIn, session: SessionDep
) -> dict[str, Any]:
    course, assignment = taught.course, taught.assignment
    regrade = regrades.regrade_in(session, assignment, regrade_id)
    regrades.apply(session, course, assignment, regrade, taught.user, never_lower=body.never_lower)
    return regrades.view(session, course, assignment, regrade)
