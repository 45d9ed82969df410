"""Who calls the courses API and pages: a session user or an API token's owner.

Session requests that change something must carry the CSRF token; token requests need none
(a browser never attaches ``Authorization: Bearer`` by itself). A token needs a scope
(403 ``insufficient_scope`` without it): ``read`` for what a learner reads (:data:`CourseReader`),
``submit`` to join a course (:data:`CourseJoiner`), ``teach`` for everything an instructor reads or
changes (:data:`CourseTeacher`, :data:`CourseWriter`). Course-level rights (instructor, student,
outsider) are decided by :mod:`app.courses.enrolment`, not here; :data:`InstructorAssignment` and
its siblings apply them to the course and assignment in the path, once for every route.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path

from app.accounts.deps import CurrentUser, ReadCaller, SubmitCaller, TeachReadCaller, TeachWriteCaller
from app.accounts.models import User
from app.courses import assignments, enrolment
from app.courses.models import Assignment, Course
from app.kit.db import utcnow
from app.kit.web import SessionDep

# The shared session-or-token callers (app.accounts.deps), named for what they do in a course.
CourseReader = ReadCaller
CourseJoiner = SubmitCaller
CourseTeacher = TeachReadCaller
CourseWriter = TeachWriteCaller

CourseId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the course's id")]
AssignmentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the assignment's id")]
UserId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the student's user id")]
RegradeId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the regrade's id")]


@dataclass(frozen=True)
class TaughtAssignment:
    """The path's assignment, of a course its caller teaches (an instructor of it, or an admin)."""

    course: Course
    assignment: Assignment
    user: User


def taught_assignment(
    session: SessionDep, course_id: int, assignment_id: int, user: User
) -> TaughtAssignment:
    """404 "There is no course #…" unless ``user`` teaches it (students and outsiders too), then
    404 "There is no assignment #… in this course" unless it is one of the course's."""
    course = enrolment.course_for_instructor(session, course_id, user)
    return TaughtAssignment(
        course, assignments.assignment_for(session, course, assignment_id, user, utcnow()), user
    )


def _read_api(
    course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CourseTeacher
) -> TaughtAssignment:
    return taught_assignment(session, course_id, assignment_id, user)


def _write_api(
    course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CourseWriter
) -> TaughtAssignment:
    return taught_assignment(session, course_id, assignment_id, user)


def _page(
    course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CurrentUser
) -> TaughtAssignment:
    return taught_assignment(session, course_id, assignment_id, user)


# The caller decides how it is authenticated: a token with ``teach`` (or a session) to read, the same
# with the CSRF token to change, and the session user of the pages (whose routes check the CSRF token).
InstructorAssignment = Annotated[TaughtAssignment, Depends(_read_api)]
InstructorAssignmentWriter = Annotated[TaughtAssignment, Depends(_write_api)]
InstructorAssignmentPage = Annotated[TaughtAssignment, Depends(_page)]
