"""What a verified launch creates or finds: the account (by issuer and ``sub``, never by e-mail),
the course linked to the LMS context, the member's role in it, and the resource link's target.

Accounts made here have a random password nobody knows: their owner signs in from the LMS (or
sets a password through a reset mail, when the LMS gave an address nobody else had).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import repository as accounts_repository
from app.accounts.models import User
from app.accounts.service import EMAIL_RE, normalise_email
from app.courses import enrolment
from app.courses import repository as courses_repository
from app.courses.models import Assignment, Course
from app.kit.security import hash_password
from app.lti import claims
from app.lti.launch import Launch, LaunchRefused
from app.lti.models import LtiContext, LtiResourceLink, LtiUserLink
from app.problems.models import Problem


def _placeholder_email(issuer: str, sub: str) -> str:
    digest = hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()[:20]
    return f"lti-{digest}@lms.invalid"


def user_for(session: Session, issuer: str, sub: str, email: str | None, name: str, teaches: bool) -> User:
    """The account linked to (issuer, sub), made on first sight. An LMS e-mail is used as the new
    account's address only when no account has it; it never links to an existing account."""
    link = session.scalars(
        select(LtiUserLink).where(LtiUserLink.issuer == issuer, LtiUserLink.sub == sub)
    ).first()
    if link is not None:
        user = accounts_repository.get_user(session, link.user_id)
        assert user is not None
        if name and link.name != name[:255]:
            link.name = name[:255]
    else:
        address = normalise_email(email or "")
        if not (address and len(address) <= 254 and EMAIL_RE.match(address)) or (
            accounts_repository.get_user_by_email(session, address) is not None
        ):
            address = _placeholder_email(issuer, sub)
        user = accounts_repository.add_user(
            session,
            User(email=address, password_hash=hash_password(secrets.token_urlsafe(32)), role="student"),
        )
        try:
            with session.begin_nested():
                session.add(LtiUserLink(issuer=issuer, sub=sub, user_id=user.id, name=name[:255]))
                session.flush()
        except IntegrityError:  # the same person's two launches at once
            raise LaunchRefused("another launch of yours is being set up; open the link again.") from None
    if teaches and user.role == "student":  # the LMS says this person teaches: let them run courses
        user.role = "instructor"
    session.flush()
    return user


def launch_user(session: Session, launch: Launch) -> User:
    c = launch.claims
    name = str(c.get("name") or " ".join(str(c.get(k) or "") for k in ("given_name", "family_name")).strip())
    email = c.get("email") if isinstance(c.get("email"), str) else None
    return user_for(session, launch.platform.issuer, launch.sub, email, name, claims.teaches(launch.roles))


def context_of(session: Session, launch: Launch) -> LtiContext | None:
    context = launch.claim(claims.CONTEXT)
    context_id = context.get("id")
    if not isinstance(context_id, str) or not context_id:
        return None
    return session.scalars(
        select(LtiContext).where(
            LtiContext.deployment_id == launch.deployment.id, LtiContext.context_id == context_id
        )
    ).first()


def link_context(session: Session, launch: Launch, course: Course) -> LtiContext:
    """Link the launch's context to ``course`` (kept if already linked); refresh its service URLs."""
    context = launch.claim(claims.CONTEXT)
    context_id = context.get("id")
    if not isinstance(context_id, str) or not context_id:
        raise LaunchRefused("the launch names no LMS course (context).")
    row = context_of(session, launch)
    if row is None:
        row = LtiContext(deployment_id=launch.deployment.id, context_id=context_id[:255], course_id=course.id)
        try:
            with session.begin_nested():
                session.add(row)
                session.flush()
        except IntegrityError:
            raise LaunchRefused(
                "this LMS course is being linked by another launch; open the link again."
            ) from None
        if course.lti_context_id is None:  # the older single column names the first link
            course.lti_context_id = context_id[:255]
    row.title = str(context.get("title") or context.get("label") or row.title)[:255]
    ags = launch.claim(claims.AGS_ENDPOINT)
    if isinstance(ags.get("lineitems"), str):
        row.lineitems_url = ags["lineitems"]
    if isinstance(ags.get("scope"), list):
        row.ags_scopes = [str(s) for s in ags["scope"]]
    nrps = launch.claim(claims.NRPS)
    if isinstance(nrps.get("context_memberships_url"), str):
        row.memberships_url = nrps["context_memberships_url"]
    session.flush()
    return row


def course_for_launch(session: Session, launch: Launch, user: User) -> tuple[Course, LtiContext]:
    """The course the launch's context is linked to; an instructor's first launch makes one."""
    row = context_of(session, launch)
    if row is not None:
        course = courses_repository.get_course(session, row.course_id)
        assert course is not None
        return course, link_context(session, launch, course)
    if not claims.teaches(launch.roles):
        raise LaunchRefused(
            "this LMS course is not linked to a Torchdrill course yet: your instructor opens "
            "a Torchdrill link in it once to set it up."
        )
    context = launch.claim(claims.CONTEXT)
    title = str(context.get("title") or context.get("label") or "Course from the LMS").strip()[:200]
    course = enrolment.create_course(session, user, " ".join(title.split()) or "Course from the LMS")
    return course, link_context(session, launch, course)


def place_member(session: Session, course: Course, user: User, roles: list[str], now: datetime) -> None:
    """Instructor → the course's instructor; Learner → an enrolled student."""
    if claims.teaches(roles):
        enrolment.make_instructor(session, course, user)
    elif claims.learns(roles) or not roles:
        member = courses_repository.membership(session, course.id, user.id)
        if member is None or member.role != "instructor":
            enrolment.enrol_student(session, course, user, now)


def resource_target(session: Session, launch: Launch, context: LtiContext) -> LtiResourceLink | None:
    """The assignment or problem the resource link points at: stored, or named by the link's
    custom parameters (set by deep linking) and stored on first launch."""
    link_id = str(launch.claim(claims.RESOURCE_LINK).get("id"))[:255]
    row = session.scalars(
        select(LtiResourceLink).where(
            LtiResourceLink.context_link_id == context.id, LtiResourceLink.resource_link_id == link_id
        )
    ).first()
    if row is not None:
        return row
    custom = launch.claim(claims.CUSTOM)
    assignment_id = problem_id = None
    if str(custom.get("assignment", "")).isdigit():
        assignment = session.get(Assignment, int(custom["assignment"]))
        if assignment is None or assignment.course_id != context.course_id:
            raise LaunchRefused("this link points at an assignment of another course.")
        assignment_id = assignment.id
    elif isinstance(custom.get("problem"), str):
        problem = session.scalars(select(Problem).where(Problem.slug == custom["problem"])).first()
        if problem is None:
            raise LaunchRefused("this link points at a problem that does not exist.")
        problem_id = problem.id
    else:
        return None
    row = LtiResourceLink(
        context_link_id=context.id,
        resource_link_id=link_id,
        assignment_id=assignment_id,
        problem_id=problem_id,
    )
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:
        raise LaunchRefused("this link is being set up by another launch; open it again.") from None
    return row
