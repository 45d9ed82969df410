"""Who calls the courses API and pages: a session user or an API token's owner.

Session requests that change something must carry the CSRF token; token requests need none
(a browser never attaches ``Authorization: Bearer`` by itself). Course-level rights (instructor,
student, outsider) are decided by :mod:`app.courses.enrolment`, not here.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request

from app.accounts.deps import OptionalApiUser, OptionalUser
from app.accounts.models import User
from app.kit.errors import LoginRequired
from app.kit.web import require_csrf


def course_reader(session_user: OptionalUser, token_user: OptionalApiUser) -> User:
    user = token_user or session_user
    if user is None:
        raise LoginRequired()
    return user


async def course_writer(request: Request, session_user: OptionalUser, token_user: OptionalApiUser) -> User:
    user = course_reader(session_user, token_user)
    if token_user is None:
        await require_csrf(request)
    return user


CourseReader = Annotated[User, Depends(course_reader)]
CourseWriter = Annotated[User, Depends(course_writer)]
CourseId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the course's id")]
AssignmentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the assignment's id")]
UserId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the student's user id")]
RegradeId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the regrade's id")]
