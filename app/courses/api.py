"""``/api/v1/courses``: courses, enrolment and what a member reads (JSON); with the routers of
assignments (:mod:`app.courses.assignment_api`) and grading (:mod:`app.courses.grading_api`).

Errors are ``{"error", "detail"}``; a course is 404 to anybody who is not in it, and instructor
routes are 404 to its students as well.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field

from app.courses import assignment_api, assignments, enrolment, grading_api, invitations
from app.courses.api_common import ERRORS, ROOT, page_size
from app.courses.deps import CourseId, CourseJoiner, CourseReader, CourseWriter, UserId
from app.courses.views import assignment_view, course_view
from app.kit.db import utcnow
from app.kit.paging import next_url
from app.kit.web import PageAfter, PageLimit, SessionDep, SettingsDep

router = APIRouter(prefix=ROOT, tags=["courses"])


class CourseIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"title": "Deep learning", "term": "Spring 2027"}]}
    )
    title: str = Field(max_length=200)
    term: str = Field(default="", max_length=100)
    timezone: str = Field(default="UTC", max_length=64, description="IANA name, e.g. Europe/Paris")
    ends_at: datetime | None = Field(default=None, description="When course access to Premium problems ends")
    join_code_expires_at: datetime | None = None
    invitation_only: bool = Field(default=False, description="Only invited students may join")


class JoinIn(BaseModel):
    code: str = Field(
        max_length=40,
        description="The course's join code, or an invitation code (only its email's account can use it)",
    )


class EnrolmentIn(BaseModel):
    invitation_only: bool = Field(description="Only invited students may join; the join code enrols nobody")


class RotateIn(BaseModel):
    expires_at: datetime | None = None


class RosterIn(BaseModel):
    csv: str = Field(max_length=1_000_000, description="CSV of emails; optional header `email,section`")


class InstructorIn(BaseModel):
    email: str = Field(max_length=254)


class StudentStatusIn(BaseModel):
    status: Literal["active", "removed", "blocked"]


def _role(session: SessionDep, course: Any, user: Any) -> str:
    return "instructor" if enrolment.is_instructor(session, course, user) else "student"


@router.post("", status_code=201, responses=ERRORS, summary="Create a course (instructors and admins)")
def create_course(body: CourseIn, session: SessionDep, user: CourseWriter) -> dict[str, Any]:
    course = enrolment.create_course(
        session,
        user,
        body.title,
        term=body.term,
        timezone=body.timezone,
        ends_at=body.ends_at,
        join_code_expires_at=body.join_code_expires_at,
        invitation_only=body.invitation_only,
    )
    return course_view(course, "instructor")


# GET /courses/{id} carries this many assignments; a longer course pages on with `assignments_next`.
EMBEDDED_ASSIGNMENTS = 100


@router.get("", responses=ERRORS, summary="My courses")
def my_courses(
    session: SessionDep,
    user: CourseReader,
    settings: SettingsDep,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """Your courses (active memberships), newest first, with your `role`; follow `next` for more."""
    size = page_size(limit, settings)
    page = enrolment.page_of_my_courses(session, user, after, size)
    return {
        "items": [course_view(c, m.role) for c, m in page.items],
        "next": next_url(ROOT, {"limit": size}, page.cursor),
    }


@router.post("/join", responses=ERRORS, summary="Join a course with a code, or accept an invitation")
def join(body: JoinIn, session: SessionDep, user: CourseJoiner) -> dict[str, Any]:
    """A join code enrols you; an invitation code does so only for the account of the email it
    was sent to (403 for any other account)."""
    course = enrolment.join(session, user, body.code, utcnow())
    return course_view(course, _role(session, course, user))


InvitationId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the invitation's id")]


@router.get("/invitations", responses=ERRORS, summary="Invitations to my email, not yet answered")
def my_invitations(session: SessionDep, user: CourseReader) -> dict[str, Any]:
    """Courses that invited your email (from a roster): accept with `POST /join` and the `code`,
    or decline. Nothing of yours is visible to a course until you accept."""
    return {
        "items": [
            {
                "id": p.invitation.id,
                "code": p.invitation.code,
                "section": p.invitation.section,
                "course": {"id": p.course.id, "title": p.course.title, "term": p.course.term},
            }
            for p in invitations.my_invitations(session, user)
        ]
    }


@router.post("/invitations/{invitation_id}/decline", responses=ERRORS, summary="Decline an invitation")
def decline_invitation(
    invitation_id: InvitationId, session: SessionDep, user: CourseJoiner
) -> dict[str, Any]:
    invitation = invitations.decline(session, user, invitation_id, utcnow())
    return {"id": invitation.id, "declined": True}


def _assignment_page(
    session: SessionDep, course: Any, user: Any, after: str | None, size: int
) -> tuple[list[dict[str, Any]], str | None]:
    page = assignments.page_of_visible(session, course, user, utcnow(), after, size)
    slugs = assignments.problem_slugs(session, page.items)
    items = [assignment_view(a, slugs[a.id]) for a in page.items]
    return items, next_url(f"{ROOT}/{course.id}/assignments", {"limit": size}, page.cursor)


@router.get("/{course_id}", responses=ERRORS, summary="A course and the assignments you can see")
def get_course(course_id: CourseId, session: SessionDep, user: CourseReader) -> dict[str, Any]:
    """The course and its first assignments you may see (students: released ones), by due time;
    `assignments_next` (null when they are all here) continues at `GET .../assignments`."""
    course = enrolment.course_for_member(session, course_id, user)
    items, more = _assignment_page(session, course, user, None, EMBEDDED_ASSIGNMENTS)
    view = course_view(course, _role(session, course, user))
    return view | {"assignments": items, "assignments_next": more}


@router.get("/{course_id}/assignments", responses=ERRORS, summary="The assignments you can see")
def list_assignments(
    course_id: CourseId,
    session: SessionDep,
    user: CourseReader,
    settings: SettingsDep,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """The course's assignments you may see (students: released ones, by their own dates), by due
    time then id; follow `next` for more."""
    course = enrolment.course_for_member(session, course_id, user)
    items, more = _assignment_page(session, course, user, after, page_size(limit, settings))
    return {"items": items, "next": more}


@router.post("/{course_id}/join-code", responses=ERRORS, summary="Rotate the join code")
def rotate(course_id: CourseId, body: RotateIn, session: SessionDep, user: CourseWriter) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    return course_view(enrolment.rotate_join_code(session, course, body.expires_at), "instructor")


@router.put("/{course_id}/enrolment", responses=ERRORS, summary="Invitation only, or the join code too")
def enrolment_mode(
    course_id: CourseId, body: EnrolmentIn, session: SessionDep, user: CourseWriter
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    return course_view(enrolment.set_invitation_only(session, course, body.invitation_only), "instructor")


@router.post("/{course_id}/roster", responses=ERRORS, summary="Invite a roster CSV of emails")
def roster(course_id: CourseId, body: RosterIn, session: SessionDep, user: CourseWriter) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    report = invitations.import_roster(session, course, body.csv)
    return {
        "enrolled": [],  # since 2026-12-05 a roster only invites (docs/api.md)
        "invited": [{"email": e, "code": c} for e, c in report.invited],
        "skipped": [{"line": n, "reason": r} for n, r in report.skipped],
    }


@router.post("/{course_id}/instructors", status_code=201, responses=ERRORS, summary="Add a co-instructor")
def add_instructor(
    course_id: CourseId, body: InstructorIn, session: SessionDep, user: CourseWriter
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    member = enrolment.add_instructor(session, course, user, body.email)
    return {"user_id": member.user_id, "role": member.role}


@router.put(
    "/{course_id}/students/{user_id}",
    responses=ERRORS | {409: {"description": "`active` for a student who is not: only they can rejoin"}},
    summary="Remove or block a student (removed also unblocks)",
)
def student_status(
    course_id: CourseId, user_id: UserId, body: StudentStatusIn, session: SessionDep, user: CourseWriter
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    member = enrolment.set_student_status(session, course, user_id, body.status, utcnow())
    return {"user_id": member.user_id, "status": member.status}


@router.post("/{course_id}/leave", responses=ERRORS, summary="Leave a course (students)")
def leave(course_id: CourseId, session: SessionDep, user: CourseJoiner) -> dict[str, Any]:
    """You are out of the course at once; nothing you do from now on is visible to it. What you did
    while enrolled stays in its record. Rejoin with the join code or an invitation."""
    course = enrolment.course_for_member(session, course_id, user)
    member = enrolment.leave(session, course, user, utcnow())
    return {"id": course.id, "status": member.status}


router.include_router(assignment_api.router)
router.include_router(grading_api.router)
