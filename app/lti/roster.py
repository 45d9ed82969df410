"""Names and Role Provisioning Services: the LMS context's roster brought into the linked course.

On demand (the course's LTI page button, or ``POST /api/v1/courses/{id}/lti/roster-sync``):
every active Learner becomes an enrolled student, every Instructor an instructor, each linked by
(issuer, user id) like a launch; members the LMS marks Inactive are not enrolled. Nobody is
removed: leaving the course stays the instructor's decision in Torchdrill.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.courses.models import Course
from app.kit.db import Database, utcnow
from app.kit.errors import Conflict
from app.lti import claims, keys, provision
from app.lti.models import LtiContext, LtiDeployment, LtiPlatform
from app.lti.services import Caller, ServiceError, memberships


@dataclass
class RosterResult:
    students: int = 0
    instructors: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


def sync(db: Database, secret_key: str, course: Course) -> RosterResult:
    """Fetch each linked context's members (outside any transaction), then enrol them in one."""
    with db.transaction() as session:
        targets = _targets(session, secret_key, course.id)
    if not targets:
        raise Conflict("This course is linked to no LMS course that offers its roster (Names and Roles).")
    result = RosterResult()
    fetched: list[tuple[str, list[dict[str, object]]]] = []
    for issuer, caller, url in targets:
        try:
            fetched.append((issuer, memberships(caller, url)))
        except ServiceError as exc:
            result.errors.append(str(exc))
    now = utcnow()
    with db.transaction() as session:
        fresh = session.get(Course, course.id)
        assert fresh is not None
        for issuer, members in fetched:
            for member in members:
                sub, status = member.get("user_id"), member.get("status", "Active")
                raw_roles = member.get("roles")
                roles = [r for r in raw_roles if isinstance(r, str)] if isinstance(raw_roles, list) else []
                if not isinstance(sub, str) or not sub or status != "Active":
                    result.skipped += 1
                    continue
                raw_email = member.get("email")
                email = raw_email if isinstance(raw_email, str) else None
                user = provision.user_for(
                    session,
                    issuer,
                    sub,
                    email,
                    str(member.get("name") or ""),
                    claims.teaches(roles),
                )
                provision.place_member(session, fresh, user, roles, now)
                if claims.teaches(roles):
                    result.instructors += 1
                else:
                    result.students += 1
    return result


def _targets(session: Session, secret_key: str, course_id: int) -> list[tuple[str, Caller, str]]:
    rows = session.execute(
        select(LtiContext, LtiPlatform)
        .join(LtiDeployment, LtiDeployment.id == LtiContext.deployment_id)
        .join(LtiPlatform, LtiPlatform.id == LtiDeployment.platform_id)
        .where(LtiContext.course_id == course_id, LtiContext.memberships_url.is_not(None))
    ).all()
    if not rows:
        return []
    signing = keys.signing_key(session, secret_key)
    return [
        (
            platform.issuer,
            Caller(platform.id, platform.client_id, platform.token_url, signing),
            context.memberships_url,
        )
        for context, platform in rows
        if context.memberships_url
    ]
