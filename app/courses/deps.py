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

from app.accounts.deps import ApiCaller, OptionalApiCaller, OptionalUser
from app.accounts.models import User
from app.kit.errors import LoginRequired
from app.kit.web import require_csrf


def _caller(session_user: User | None, caller: ApiCaller | None, scope: str) -> User:
    user = caller.require(scope) if caller is not None else session_user
    if user is None:
        raise LoginRequired()
    return user


def course_reader(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return _caller(session_user, caller, "read")


def course_teacher(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return _caller(session_user, caller, "teach")


async def _writer(request: Request, session_user: User | None, caller: ApiCaller | None, scope: str) -> User:
    user = _caller(session_user, caller, scope)
    if caller is None:
        await require_csrf(request)
    return user


async def course_writer(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return await _writer(request, session_user, caller, "teach")


async def course_joiner(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return await _writer(request, session_user, caller, "submit")


CourseReader = Annotated[User, Depends(course_reader)]
CourseTeacher = Annotated[User, Depends(course_teacher)]
CourseWriter = Annotated[User, Depends(course_writer)]
CourseJoiner = Annotated[User, Depends(course_joiner)]
CourseId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the course's id")]
AssignmentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the assignment's id")]
UserId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the student's user id")]
RegradeId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the regrade's id")]
