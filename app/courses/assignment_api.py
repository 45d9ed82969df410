"""``/api/v1/courses/{id}/assignments``: an instructor creates an assignment and gives one student
their own dates; a member reads one assignment with their own dates, score and progress (JSON).

The list of a course's assignments is :mod:`app.courses.api`'s, with the course it belongs to.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.courses import assignments, enrolment
from app.courses.api_common import ERRORS
from app.courses.deps import (
    AssignmentId,
    CourseId,
    CourseReader,
    CourseWriter,
    InstructorAssignmentWriter,
    UserId,
)
from app.courses.views import assignment_view
from app.kit.db import utcnow
from app.kit.web import SessionDep

router = APIRouter()  # under app.courses.api's prefix and tags


class LateIn(BaseModel):
    until: str = Field(description="ISO 8601 with offset")
    credit: float = Field(ge=0, le=100, description="percent")


class AssignmentIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "title": "Week 1: tensors",
                    "problems": ["add-tensors", "scale-rows"],
                    "release_at": "2027-02-01T09:00:00+01:00",
                    "due_at": "2027-02-08T23:59:00+01:00",
                    "late": [{"until": "2027-02-10T23:59:00+01:00", "credit": 50}],
                }
            ]
        }
    )
    title: str = Field(max_length=200)
    problems: list[str] = Field(max_length=assignments.MAX_PROBLEMS)
    release_at: str = Field(description="ISO 8601 with offset")
    due_at: str = Field(description="ISO 8601 with offset")
    late: list[LateIn] = Field(default_factory=list, max_length=20)
    after_last: Literal["zero", "closed"] = "zero"
    lti_line_item_id: str | None = Field(default=None, max_length=255)


class ExtensionIn(BaseModel):
    release_at: str | None = None
    due_at: str | None = None
    late: list[LateIn] | None = None


@router.post("/{course_id}/assignments", status_code=201, responses=ERRORS, summary="Create an assignment")
def create_assignment(
    course_id: CourseId, body: AssignmentIn, session: SessionDep, user: CourseWriter
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.create_assignment(
        session,
        course,
        title=body.title,
        problem_slugs=body.problems,
        release_at=body.release_at,
        due_at=body.due_at,
        late=[w.model_dump() for w in body.late],
        after_last=body.after_last,
        lti_line_item_id=body.lti_line_item_id,
    )
    return assignment_view(assignment, body.problems)


@router.get("/{course_id}/assignments/{assignment_id}", responses=ERRORS, summary="An assignment")
def get_assignment(
    course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CourseReader
) -> dict[str, Any]:
    now = utcnow()
    course = enrolment.course_for_member(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, now)
    mine = assignments.student_view(session, assignment, user)
    return assignment_view(assignment, [p.slug for p in mine.problems]) | {
        "your_due_at": mine.dates.due_at.isoformat(),
        "your_closes_at": mine.dates.closes_at.isoformat(),
        "score": mine.score.percent,
        "problem_status": [{"slug": p.slug, "status": p.status, "credit": p.credit} for p in mine.problems],
    }


@router.put(
    "/{course_id}/assignments/{assignment_id}/extensions/{user_id}",
    responses=ERRORS,
    summary="Give one student their own dates",
)
def set_extension(
    taught: InstructorAssignmentWriter, user_id: UserId, body: ExtensionIn, session: SessionDep
) -> dict[str, Any]:
    ext = assignments.set_extension(
        session,
        taught.assignment,
        user_id,
        release_at=body.release_at,
        due_at=body.due_at,
        late=[w.model_dump() for w in body.late] if body.late is not None else None,
    )
    return {
        "user_id": ext.user_id,
        "release_at": ext.release_at.isoformat() if ext.release_at else None,
        "due_at": ext.due_at.isoformat() if ext.due_at else None,
        "late": ext.late,
    }
