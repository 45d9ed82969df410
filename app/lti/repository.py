"""Queries of the LTI pages: the deep-linking picker's choices, a course's LMS links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import enrolment
from app.courses.models import Assignment, Course, CourseMember
from app.kit.errors import InvalidInput
from app.lti import deep_linking
from app.lti.models import LtiContext, LtiDeployment, LtiLineItem, LtiPlatform
from app.problems.models import Problem
from app.problems.repository import SITE_WIDE

PROBLEMS_SHOWN = 30


def problem_slug(session: Session, problem_id: int) -> str:
    return str(session.scalar(select(Problem.slug).where(Problem.id == problem_id)))


def _linked_course_id(session: Session, pending: dict[str, Any]) -> int | None:
    if not pending.get("context_id"):
        return None
    return session.scalar(
        select(LtiContext.course_id)
        .join(LtiDeployment, LtiDeployment.id == LtiContext.deployment_id)
        .where(
            LtiDeployment.platform_id == int(pending["platform_id"]),
            LtiDeployment.deployment_id == pending["deployment_id"],
            LtiContext.context_id == pending["context_id"],
        )
    )


def _taught(session: Session, user: User, pending: dict[str, Any]) -> list[Course]:
    linked = _linked_course_id(session, pending)
    query = (
        select(Course)
        .join(CourseMember, CourseMember.course_id == Course.id)
        .where(
            CourseMember.user_id == user.id,
            CourseMember.role == "instructor",
            CourseMember.status == "active",
        )
        .order_by(Course.id.desc())
    )
    if linked is not None:
        query = query.where(Course.id == linked)
    return list(session.scalars(query))


@dataclass(frozen=True)
class Choices:
    courses: list[tuple[Course, list[Assignment]]]
    problems: list[Problem]
    linked: bool


def picker_choices(session: Session, user: User, pending: dict[str, Any], q: str) -> Choices:
    courses = _taught(session, user, pending)
    by_course: dict[int, list[Assignment]] = {c.id: [] for c in courses}
    if by_course:
        for a in session.scalars(
            select(Assignment)
            .where(Assignment.course_id.in_(list(by_course)))
            .order_by(Assignment.due_at, Assignment.id)
        ):
            by_course[a.course_id].append(a)
    query = select(Problem).where(*SITE_WIDE)
    words = q.strip().lower()
    if words:
        like = f"%{words.replace('%', '').replace('_', '')}%"
        query = query.where(or_(func.lower(Problem.title).like(like), Problem.slug.like(like)))
    problems = list(session.scalars(query.order_by(Problem.title).limit(PROBLEMS_SHOWN)))
    return Choices(
        [(c, by_course[c.id]) for c in courses], problems, _linked_course_id(session, pending) is not None
    )


def picked_item(
    session: Session, user: User, pending: dict[str, Any], choice: str, launch_url: str
) -> dict[str, Any]:
    """The content item of ``choice`` ("assignment:<id>" or "problem:<slug>"), checked against
    what this instructor may link here; an assignment links an unlinked context to its course."""
    kind, _, value = choice.partition(":")
    if kind == "assignment" and value.isdigit():
        assignment = session.get(Assignment, int(value))
        allowed = {c.id for c in _taught(session, user, pending)}
        if assignment is None or assignment.course_id not in allowed:
            raise InvalidInput("Pick one of the assignments listed.")
        _link_context(session, pending, assignment.course_id)
        return deep_linking.content_item(launch_url, assignment=assignment)
    if kind == "problem" and value:
        problem = session.scalars(select(Problem).where(Problem.slug == value, *SITE_WIDE)).first()
        if problem is None:
            raise InvalidInput("Pick one of the problems listed.")
        return deep_linking.content_item(launch_url, problem=problem)
    raise InvalidInput("Pick an assignment or a problem.")


def _link_context(session: Session, pending: dict[str, Any], course_id: int) -> None:
    if not pending.get("context_id") or _linked_course_id(session, pending) is not None:
        return
    deployment = session.scalars(
        select(LtiDeployment).where(
            LtiDeployment.platform_id == int(pending["platform_id"]),
            LtiDeployment.deployment_id == pending["deployment_id"],
        )
    ).first()
    if deployment is None:
        return
    session.add(
        LtiContext(
            deployment_id=deployment.id,
            context_id=str(pending["context_id"])[:255],
            title=str(pending.get("context_title") or "")[:255],
            course_id=course_id,
            ags_scopes=[],
        )
    )
    course = session.get(Course, course_id)
    if course is not None and course.lti_context_id is None:
        course.lti_context_id = str(pending["context_id"])[:255]
    session.flush()


@dataclass(frozen=True)
class ContextRow:
    context: LtiContext
    platform: LtiPlatform
    line_items: int


def course_contexts(session: Session, course_id: int) -> list[ContextRow]:
    rows = session.execute(
        select(LtiContext, LtiPlatform)
        .join(LtiDeployment, LtiDeployment.id == LtiContext.deployment_id)
        .join(LtiPlatform, LtiPlatform.id == LtiDeployment.platform_id)
        .where(LtiContext.course_id == course_id)
        .order_by(LtiContext.id)
    ).all()
    counts = dict(
        session.execute(
            select(LtiLineItem.context_link_id, func.count()).group_by(LtiLineItem.context_link_id)
        ).all()
    )
    return [ContextRow(c, p, int(counts.get(c.id, 0))) for c, p in rows]


def is_instructor(session: Session, course: Course, user: User) -> bool:
    return enrolment.is_instructor(session, course, user)
