"""Who teaches a problem: the instructors of the courses that use it.

A problem is *used* by a course when one of the course's assignments holds it, or when it is a
course-only problem of that course. Its active instructors answer for what is written about the
problem (the discussion's "answered" marks and pins, the moderation queue); admins are decided by
the callers. One query, so every rule that needs it asks the same question.
"""

from __future__ import annotations

from sqlalchemy import exists, or_, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses.models import ACTIVE, INSTRUCTOR, Assignment, AssignmentProblem, CourseMember
from app.problems.models import Problem


def _taught_courses(user_id: int) -> object:
    return select(CourseMember.course_id).where(
        CourseMember.user_id == user_id, CourseMember.role == INSTRUCTOR, CourseMember.status == ACTIVE
    )


def teaches_problem(session: Session, user: User | None, problem: Problem) -> bool:
    """Whether ``user`` actively instructs a course that uses ``problem`` (staff only)."""
    if user is None or not user.is_staff:
        return False
    taught = _taught_courses(user.id)
    in_assignment = exists(
        select(AssignmentProblem.problem_id)
        .join(Assignment, Assignment.id == AssignmentProblem.assignment_id)
        .where(AssignmentProblem.problem_id == problem.id, Assignment.course_id.in_(taught))  # type: ignore[arg-type]
    )
    conditions = [in_assignment]
    if problem.course_only and problem.course_id is not None:
        conditions.append(
            exists(
                select(CourseMember.id).where(
                    CourseMember.course_id == problem.course_id,
                    CourseMember.user_id == user.id,
                    CourseMember.role == INSTRUCTOR,
                    CourseMember.status == ACTIVE,
                )
            )
        )
    return bool(session.scalar(select(or_(*conditions))))


def taught_problem_ids(session: Session, user: User) -> set[int]:
    """The ids of every problem a course ``user`` actively instructs uses (the moderation queue's scope)."""
    taught = _taught_courses(user.id)
    in_assignments = (
        select(AssignmentProblem.problem_id)
        .join(Assignment, Assignment.id == AssignmentProblem.assignment_id)
        .where(Assignment.course_id.in_(taught))  # type: ignore[arg-type]
    )
    course_only = select(Problem.id).where(Problem.course_only.is_(True), Problem.course_id.in_(taught))  # type: ignore[arg-type]
    return set(session.scalars(in_assignments)) | set(session.scalars(course_only))
