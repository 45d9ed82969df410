"""Who calls the courses API and pages: a session user or an API token's owner.

Session requests that change something must carry the CSRF token; token requests need none
(a browser never attaches ``Authorization: Bearer`` by itself). A token needs a scope
(403 ``insufficient_scope`` without it): ``read`` for what a learner reads (:data:`CourseReader`),
``submit`` to join a course (:data:`CourseJoiner`), ``teach`` for everything an instructor reads or
changes (:data:`CourseTeacher`, :data:`CourseWriter`). Course-level rights (instructor, student,
outsider) are decided by :mod:`app.courses.enrolment`, not here.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request

from app.accounts.deps import OptionalApiCaller, OptionalUser, user_with_scope, writer_with_scope
from app.accounts.models import User


def course_reader(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return user_with_scope(session_user, caller, "read")


def course_teacher(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return user_with_scope(session_user, caller, "teach")


async def course_writer(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return await writer_with_scope(request, session_user, caller, "teach")


async def course_joiner(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return await writer_with_scope(request, session_user, caller, "submit")


CourseReader = Annotated[User, Depends(course_reader)]
CourseTeacher = Annotated[User, Depends(course_teacher)]
CourseWriter = Annotated[User, Depends(course_writer)]
CourseJoiner = Annotated[User, Depends(course_joiner)]
CourseId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the course's id")]
AssignmentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the assignment's id")]
UserId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the student's user id")]
RegradeId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the regrade's id")]
