"""``/api/v1/courses``: courses, enrolment, assignments, the gradebook and regrades (JSON).

Errors are ``{"error", "detail"}``; a course is 404 to anybody who is not in it, and instructor
routes are 404 to its students as well.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from app.courses import assignments, enrolment, gradebook, regrades, similarity
from app.courses.deps import (
    AssignmentId,
    CourseId,
    CourseJoiner,
    CourseReader,
    CourseTeacher,
    CourseWriter,
    RegradeId,
    UserId,
)
from app.courses.views import assignment_view, course_view
from app.kit.db import utcnow
from app.kit.paging import next_url
from app.kit.web import PageAfter, PageLimit, SessionDep, SettingsDep
from app.submissions.deps import DispatcherDep

ROOT = "/api/v1/courses"
router = APIRouter(prefix=ROOT, tags=["courses"])

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not logged in / no valid token"},
    403: {"description": "Not allowed (a student creating a course; a token without the scope)"},
    404: {"description": "No such course, or you are not in it"},
    422: {"description": "Invalid fields (`invalid_input`)"},
}


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


class LateIn(BaseModel):
    until: str = Field(description="ISO 8601 with offset")
    credit: float = Field(ge=0, le=100, description="percent")


class AssignmentIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "title": "Week 1: tensors",
                    "problems": ["add-tensors", "scale-rows"],
                    "release_at": "2027-02-01T09:00:00+01:00",
                    "due_at": "2027-02-08T23:59:00+01:00",
                    "late": [{"until": "2027-02-10T23:59:00+01:00", "credit": 50}],
                }
            ]
        }
    )
    title: str = Field(max_length=200)
    problems: list[str] = Field(max_length=assignments.MAX_PROBLEMS)
    release_at: str = Field(description="ISO 8601 with offset")
    due_at: str = Field(description="ISO 8601 with offset")
    late: list[LateIn] = Field(default_factory=list, max_length=20)
    after_last: Literal["zero", "closed"] = "zero"
    lti_line_item_id: str | None = Field(default=None, max_length=255)


class ExtensionIn(BaseModel):
    release_at: str | None = None
    due_at: str | None = None
    late: list[LateIn] | None = None


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


def _size(limit: int | None, settings: SettingsDep) -> int:
    return min(limit or settings.api_page_size, 100)


@router.get("", responses=ERRORS, summary="My courses")
def my_courses(
    session: SessionDep,
    user: CourseReader,
    settings: SettingsDep,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """Your courses (active memberships), newest first, with your `role`; follow `next` for more."""
    size = _size(limit, settings)
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
            for p in enrolment.my_invitations(session, user)
        ]
    }


@router.post("/invitations/{invitation_id}/decline", responses=ERRORS, summary="Decline an invitation")
def decline_invitation(
    invitation_id: InvitationId, session: SessionDep, user: CourseJoiner
) -> dict[str, Any]:
    invitation = enrolment.decline(session, user, invitation_id, utcnow())
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
    items, more = _assignment_page(session, course, user, after, _size(limit, settings))
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
    report = enrolment.import_roster(session, course, body.csv)
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


@router.get("/{course_id}/students/{user_id}", responses=ERRORS, summary="A student's attempts (drill-down)")
def student_attempts(
    course_id: CourseId,
    user_id: UserId,
    session: SessionDep,
    user: CourseTeacher,
    settings: SettingsDep,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """The student's score per assignment and credit per problem (all of them, on every page),
    and a page of their `attempts` that are the course's — on an assignment's problems, inside its
    window and while they were enrolled — newest first, each with its code and per-case results;
    follow `next` for older attempts."""
    course = enrolment.course_for_instructor(session, course_id, user)
    size = _size(limit, settings)
    view = gradebook.drill_down(session, course, user_id, after=after, limit=size)
    return {
        "student": {"id": view.student_id, "email": view.email, "section": view.section},
        "assignments": [
            {
                "id": a.id,
                "title": a.title,
                "score": score,
                "problems": [{"slug": p.slug, "title": p.title, "credit": p.credit} for p in problems],
            }
            for a, score, problems in view.assignments
        ],
        "attempts": view.attempts,
        "next": next_url(f"{ROOT}/{course.id}/students/{user_id}", {"limit": size}, view.cursor),
    }


@router.post("/{course_id}/assignments", status_code=201, responses=ERRORS, summary="Create an assignment")
def create_assignment(
    course_id: CourseId, body: AssignmentIn, session: SessionDep, user: CourseWriter
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.create_assignment(
        session,
        course,
        title=body.title,
        problem_slugs=body.problems,
        release_at=body.release_at,
        due_at=body.due_at,
        late=[w.model_dump() for w in body.late],
        after_last=body.after_last,
        lti_line_item_id=body.lti_line_item_id,
    )
    return assignment_view(assignment, body.problems)


@router.get("/{course_id}/assignments/{assignment_id}", responses=ERRORS, summary="An assignment")
def get_assignment(
    course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CourseReader
) -> dict[str, Any]:
    now = utcnow()
    course = enrolment.course_for_member(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, now)
    mine = assignments.student_view(session, assignment, user)
    return assignment_view(assignment, [p.slug for p in mine.problems]) | {
        "your_due_at": mine.dates.due_at.isoformat(),
        "your_closes_at": mine.dates.closes_at.isoformat(),
        "score": mine.score.percent,
        "problem_status": [{"slug": p.slug, "status": p.status, "credit": p.credit} for p in mine.problems],
    }


@router.put(
    "/{course_id}/assignments/{assignment_id}/extensions/{user_id}",
    responses=ERRORS,
    summary="Give one student their own dates",
)
def set_extension(
    course_id: CourseId,
    assignment_id: AssignmentId,
    user_id: UserId,
    body: ExtensionIn,
    session: SessionDep,
    user: CourseWriter,
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, utcnow())
    ext = assignments.set_extension(
        session,
        assignment,
        user_id,
        release_at=body.release_at,
        due_at=body.due_at,
        late=[w.model_dump() for w in body.late] if body.late is not None else None,
    )
    return {
        "user_id": ext.user_id,
        "release_at": ext.release_at.isoformat() if ext.release_at else None,
        "due_at": ext.due_at.isoformat() if ext.due_at else None,
        "late": ext.late,
    }


Filter = Annotated[str | None, Query(max_length=100)]


@router.get("/{course_id}/gradebook", responses=ERRORS, summary="The gradebook (instructors)")
def get_gradebook(
    course_id: CourseId,
    session: SessionDep,
    user: CourseTeacher,
    settings: SettingsDep,
    section: Filter = None,
    q: Filter = None,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """One page of students (by email), each with a score per assignment and a total; `section`
    and `q` (part of the email) filter them. Follow `next` for more; the downloads are whole."""
    course = enrolment.course_for_instructor(session, course_id, user)
    size = _size(limit, settings)
    book, cursor = gradebook.page(session, course, section=section, q=q, after=after, limit=size)
    params = {"section": section, "q": q, "limit": size}
    return gradebook.as_json(book) | {"next": next_url(f"{ROOT}/{course.id}/gradebook", params, cursor)}


def _download(course_id: int, session: SessionDep, user: Any, fmt: str) -> Response:
    course = enrolment.course_for_instructor(session, course_id, user)
    content, media_type, ext = gradebook.export(gradebook.build(session, course), fmt)
    name = f"course-{course.id}-gradebook.{ext}"
    return Response(
        content, media_type=media_type, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@router.get(
    "/{course_id}/gradebook.csv",
    responses=ERRORS | {200: {"content": {"text/csv": {}}, "description": "UTF-8 CSV with a BOM"}},
    summary="The gradebook as CSV",
)
def gradebook_csv(course_id: CourseId, session: SessionDep, user: CourseTeacher) -> Response:
    return _download(course_id, session, user, "csv")


@router.get("/{course_id}/gradebook.xlsx", responses=ERRORS, summary="The gradebook as XLSX")
def gradebook_xlsx(course_id: CourseId, session: SessionDep, user: CourseTeacher) -> Response:
    return _download(course_id, session, user, "xlsx")


@router.get(
    "/{course_id}/assignments/{assignment_id}/similarity",
    responses=ERRORS,
    summary="Pairs of students' solutions ranked by similarity (instructors)",
)
def get_similarity(
    course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CourseTeacher
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, utcnow())
    return similarity.as_json(similarity.report(session, course, assignment))


class RegradeIn(BaseModel):
    problem: str = Field(max_length=200, description="The slug of one of the assignment's problems")


class ApplyIn(BaseModel):
    never_lower: bool = Field(default=False, description="Keep a student's old credit when it was higher")


REGRADE_NOTE = (
    "Re-judges the course's students' counted submissions of the problem on its current version "
    "(through the normal judge), then `GET` shows progress (`judged`/`total`) and, once `status` is "
    "`ready`, the dry run: exactly the students whose credit would change, from what to what."
)


@router.post(
    "/{course_id}/assignments/{assignment_id}/regrades",
    status_code=201,
    responses=ERRORS | {200: {"description": "This target was started before: the same run"}},
    summary="Start a regrade of one assignment problem on its current version",
    description=REGRADE_NOTE,
)
def start_regrade(
    course_id: CourseId,
    assignment_id: AssignmentId,
    body: RegradeIn,
    response: Response,
    session: SessionDep,
    user: CourseWriter,
    dispatcher: DispatcherDep,
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, utcnow())
    regrade, created = regrades.start(session, dispatcher, course, assignment, body.problem, user)
    if not created:
        response.status_code = 200
    return regrades.view(session, course, assignment, regrade)


@router.get(
    "/{course_id}/assignments/{assignment_id}/regrades/{regrade_id}",
    responses=ERRORS,
    summary="A regrade: progress and the dry run (or what was applied)",
)
def get_regrade(
    course_id: CourseId,
    assignment_id: AssignmentId,
    regrade_id: RegradeId,
    session: SessionDep,
    user: CourseTeacher,
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, utcnow())
    return regrades.view(session, course, assignment, regrades.regrade_in(session, assignment, regrade_id))


@router.post(
    "/{course_id}/assignments/{assignment_id}/regrades/{regrade_id}/apply",
    responses=ERRORS | {409: {"description": "Still judging (`conflict`)"}},
    summary="Apply a regrade (idempotent)",
)
def apply_regrade(
    course_id: CourseId,
    assignment_id: AssignmentId,
    regrade_id: RegradeId,
    body: ApplyIn,
    session: SessionDep,
    user: CourseWriter,
) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, utcnow())
    regrade = regrades.regrade_in(session, assignment, regrade_id)
    regrades.apply(session, course, assignment, regrade, user, never_lower=body.never_lower)
    return regrades.view(session, course, assignment, regrade)
