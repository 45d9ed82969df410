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

from fastapi import Path

from app.accounts.deps import ReadCaller, SubmitCaller, TeachReadCaller, TeachWriteCaller

# The shared session-or-token callers (app.accounts.deps), named for what they do in a course.
CourseReader = ReadCaller
CourseJoiner = SubmitCaller
CourseTeacher = TeachReadCaller
CourseWriter = TeachWriteCaller

CourseId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the course's id")]
AssignmentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the assignment's id")]
UserId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the student's user id")]
RegradeId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the regrade's id")]
