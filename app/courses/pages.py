"""The course pages (HTML): My courses, a course and its settings, the roster, the gradebook,
drill-down, similarity; the assignment pages (``assignment_pages``) and the regrade pages
(``regrade_pages``) are included below.

Plain forms with the session's CSRF token; the same services as ``/api/v1/courses``. A course is
404 to anybody not in it and the instructor pages are 404 to its students (the API's rules). A
refused form comes back with every value kept and each message next to its field
(``forms.FormState``, rendered by ``page_views``). Small static scripts, no inline ones:
``local-times.js`` (times in the viewer's timezone), ``course-forms.js`` (a refused form's summary
focused), ``course-copy.js`` (the join link's copy button), ``course-picker.js`` (the problem
picker), ``course-countdown.js`` (time left on the assignment page) and ``course-regrade.js``
(polls a regrade's progress until its dry run is ready).
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Path, Query, Request, UploadFile
from fastapi.responses import Response

from app.accounts.deps import CurrentUser
from app.accounts.models import User
from app.courses import (
    assignment_pages,
    enrolment,
    forms,
    gradebook,
    invitations,
    page_views,
    regrade_pages,
    similarity,
)
from app.courses.deps import CourseId, InstructorAssignmentPage, UserId
from app.courses.models import Course
from app.kit import spreadsheets
from app.kit.db import utcnow
from app.kit.errors import AppError, InvalidInput, PayloadTooLarge
from app.kit.paging import next_url
from app.kit.web import CsrfProtected, SessionDep

router = APIRouter(prefix="/courses", tags=["course pages"])

Field = Annotated[str, Form(max_length=4000)]  # the services hold the real limits, named per field
MAX_ROSTER_BYTES = 1_000_000
_notice, _page = page_views.notice, page_views.page


# --- My courses -----------------------------------------------------------------------------------


@router.get("")
def my_courses(request: Request, session: SessionDep, user: CurrentUser) -> Any:
    return page_views.my_courses(request, session, user)


@router.get("/join")
def join_link(
    request: Request, session: SessionDep, user: CurrentUser, code: Annotated[str, Query(max_length=40)] = ""
) -> Any:
    """A join link shows the form filled in; joining is the form's POST (a GET never changes state)."""
    return page_views.my_courses(request, session, user, {"join": forms.FormState({"code": code})})


@router.post("/join", dependencies=[CsrfProtected])
def join(request: Request, session: SessionDep, user: CurrentUser, code: Field = "") -> Any:
    try:
        course = enrolment.join(session, user, code, utcnow())
    except AppError as exc:
        state = forms.FormState({"code": code}).refuse(exc, "code")
        return page_views.my_courses(request, session, user, {"join": state}, status=exc.status_code)
    return _notice(request, f"/courses/{course.id}", f"You joined {course.title}.")


@router.post("/invitations/{invitation_id}/decline", dependencies=[CsrfProtected])
def decline(
    request: Request,
    invitation_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    session: SessionDep,
    user: CurrentUser,
) -> Any:
    invitations.decline(session, user, invitation_id, utcnow())
    return _notice(request, "/courses", "Invitation declined.")


@router.post("", dependencies=[CsrfProtected])
def create(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    title: Field = "",
    term: Field = "",
    timezone: Field = "UTC",
) -> Any:
    state = forms.FormState({"title": title, "term": term, "timezone": timezone})
    try:
        course = enrolment.create_course(session, user, title, term=term, timezone=timezone)
    except AppError as exc:
        if exc.status_code == 403:
            raise
        return page_views.my_courses(
            request, session, user, {"create": state.refuse(exc)}, status=exc.status_code
        )
    return _notice(
        request, f"/courses/{course.id}", "Course created. Share the join code with your students."
    )


# --- a course -------------------------------------------------------------------------------------


@router.get("/{course_id}")
def course_page(request: Request, course_id: CourseId, session: SessionDep, user: CurrentUser) -> Any:
    return page_views.course_page(request, session, user, course_id)


def _instructs(session: SessionDep, course_id: int, user: User) -> Course:
    return enrolment.course_for_instructor(session, course_id, user)


def _course_settings(request: Request, course: Course, state: forms.FormState | None = None) -> Any:
    state = state or forms.FormState(
        {"title": course.title, "term": course.term, "timezone": course.timezone}
    )
    return _page(
        request, "course_edit.html", {"course": course, "forms": {"course": state}},
        status_code=page_views.status_of({"course": state}),
    )  # fmt: skip


@router.get("/{course_id}/edit")
def edit_course_page(request: Request, course_id: CourseId, session: SessionDep, user: CurrentUser) -> Any:
    return _course_settings(request, _instructs(session, course_id, user))


@router.post("/{course_id}/edit", dependencies=[CsrfProtected])
def edit_course(
    request: Request,
    course_id: CourseId,
    session: SessionDep,
    user: CurrentUser,
    title: Field = "",
    term: Field = "",
    timezone: Field = "",
) -> Any:
    course = _instructs(session, course_id, user)
    state = forms.FormState({"title": title, "term": term, "timezone": timezone})
    try:
        with session.begin_nested():  # a refused field leaves the course as it was
            enrolment.update_course(session, course, title, term, timezone)
    except AppError as exc:
        session.refresh(course)
        return _course_settings(request, course, state.refuse(exc))
    return _notice(request, f"/courses/{course.id}", "Course saved.")


@router.post("/{course_id}/join-code", dependencies=[CsrfProtected])
def rotate(request: Request, course_id: CourseId, session: SessionDep, user: CurrentUser) -> Any:
    course = _instructs(session, course_id, user)
    enrolment.rotate_join_code(session, course)
    return _notice(request, f"/courses/{course.id}", "New join code: the old one no longer works.")


@router.post("/{course_id}/enrolment", dependencies=[CsrfProtected])
def enrolment_mode(
    request: Request,
    course_id: CourseId,
    session: SessionDep,
    user: CurrentUser,
    invitation_only: Annotated[bool, Form()] = False,
) -> Any:
    course = _instructs(session, course_id, user)
    enrolment.set_invitation_only(session, course, invitation_only)
    note = "The join code works."
    if invitation_only:
        note = "Invited students only: the join code enrols nobody."
    return _notice(request, f"/courses/{course.id}", note)


@router.post("/{course_id}/roster", dependencies=[CsrfProtected])
async def roster(
    request: Request,
    course_id: CourseId,
    session: SessionDep,
    user: CurrentUser,
    file: UploadFile | None = None,
    text: Annotated[str, Form(max_length=MAX_ROSTER_BYTES)] = "",
) -> Any:
    course = _instructs(session, course_id, user)
    state = forms.FormState({"text": text})
    try:
        if file is not None and file.filename:
            raw = await file.read(MAX_ROSTER_BYTES + 1)
            if len(raw) > MAX_ROSTER_BYTES:
                raise PayloadTooLarge("A roster file is limited to 1 MB.")
            text = raw.decode("utf-8-sig", errors="replace")
        if not text.strip():
            raise InvalidInput("Choose a CSV file of emails (or paste one).")
        report = invitations.import_roster(session, course, text)
    except AppError as exc:
        if file is not None and file.filename:
            state.values["file"] = file.filename
        state.refuse(exc, "file" if "file" in state.values else "text")
        return page_views.course_page(
            request, session, user, course.id, states={"roster": state}, status=exc.status_code
        )
    return page_views.course_page(request, session, user, course.id, report=report)


@router.post("/{course_id}/instructors", dependencies=[CsrfProtected])
def add_instructor(
    request: Request, course_id: CourseId, session: SessionDep, user: CurrentUser, email: Field = ""
) -> Any:
    course = _instructs(session, course_id, user)
    try:
        if not email.strip():
            raise InvalidInput("Enter the email of an instructor's account.")
        enrolment.add_instructor(session, course, user, email)
    except AppError as exc:
        state = forms.FormState({"email": email}).refuse(exc, "email")
        return page_views.course_page(
            request, session, user, course.id, states={"instructor": state}, status=exc.status_code
        )
    return _notice(request, f"/courses/{course.id}", f"{email} is now a co-instructor.")


@router.post("/{course_id}/students/{user_id}/status", dependencies=[CsrfProtected])
def student_status(
    request: Request,
    course_id: CourseId,
    user_id: UserId,
    session: SessionDep,
    user: CurrentUser,
    status: Field = "",
) -> Any:
    course = _instructs(session, course_id, user)
    try:
        member = enrolment.set_student_status(session, course, user_id, status, utcnow())
    except AppError as exc:
        state = forms.FormState({"status": status}).refuse(exc, "status")
        return page_views.course_page(
            request, session, user, course.id, states={"status": state}, status=exc.status_code
        )
    return _notice(request, f"/courses/{course.id}", f"Student #{member.user_id} is now {member.status}.")


@router.post("/{course_id}/leave", dependencies=[CsrfProtected])
def leave(request: Request, course_id: CourseId, session: SessionDep, user: CurrentUser) -> Any:
    course = enrolment.course_for_member(session, course_id, user)
    enrolment.leave(session, course, user, utcnow())
    return _notice(request, "/courses", f"You left {course.title}.")


# --- the gradebook and drill-down -----------------------------------------------------------------

Filter = Annotated[str | None, Query(max_length=100)]


GRADEBOOK_PAGE = 100  # students per page of the gradebook page (the downloads hold every one)


@router.get("/{course_id}/gradebook")
def gradebook_page(
    request: Request,
    course_id: CourseId,
    session: SessionDep,
    user: CurrentUser,
    section: Filter = None,
    q: Filter = None,
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    course = _instructs(session, course_id, user)
    book, cursor = gradebook.page(
        session, course, section=section or None, q=q or None, after=after or None, limit=GRADEBOOK_PAGE
    )
    here = f"/courses/{course.id}/gradebook"
    filters = {k: v for k, v in (("section", section), ("q", q)) if v}
    first, last, total = gradebook.page_range(
        session, course, section=section, q=q, after=after or None, shown=len(book.rows)
    )
    context = {
        "course": course,
        "book": book,
        "range": {"first": first, "last": last, "total": total},
        "sections": gradebook.sections(session, course),
        "section": section or "",
        "q": q or "",
        "next_page": next_url(here, filters, cursor),
        "first_page": (here + ("?" + urlencode(filters) if filters else "")) if after else None,
    }
    return _page(request, "gradebook.html", context)


ATTEMPTS_PAGE = 50  # attempts per page of the drill-down (each carries its code and cases)


@router.get("/{course_id}/students/{user_id}")
def drill_down(
    request: Request,
    course_id: CourseId,
    user_id: UserId,
    session: SessionDep,
    user: CurrentUser,
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    course = _instructs(session, course_id, user)
    view = gradebook.drill_down(session, course, user_id, after=after or None, limit=ATTEMPTS_PAGE)
    here = f"/courses/{course.id}/students/{user_id}"
    older = next_url(here, {}, view.cursor)
    context = {
        "course": course,
        "view": view,
        "next_page": older + "#attempts" if older else None,  # the scores come first on every page
        "first_page": here + "#attempts" if after else None,
    }
    return _page(request, "student.html", context)


# --- similarity across the class ------------------------------------------------------------------

SIMILAR_SHOWN = 100  # pairs on the page (the CSV holds every ranked pair)
Slug = Annotated[str, Path(max_length=80, pattern=r"^[a-z0-9-]+$")]


@router.get("/{course_id}/assignments/{assignment_id}/similarity")
def similarity_page(request: Request, taught: InstructorAssignmentPage, session: SessionDep) -> Any:
    course, assignment = taught.course, taught.assignment
    report = similarity.report(session, course, assignment)
    context = {
        "course": course,
        "assignment": assignment,
        "report": report,
        "top": report.pairs[:SIMILAR_SHOWN],
    }
    return _page(request, "similarity.html", context)


@router.get("/{course_id}/assignments/{assignment_id}/similarity.csv")
def similarity_csv(taught: InstructorAssignmentPage, session: SessionDep) -> Response:
    course, assignment = taught.course, taught.assignment
    body = similarity.to_csv(similarity.report(session, course, assignment))
    name = f"similarity-course{course.id}-assignment{assignment.id}.csv"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(body, media_type=spreadsheets.CSV_MEDIA_TYPE, headers=headers)


@router.get("/{course_id}/assignments/{assignment_id}/similarity/{slug}/{left_id}/{right_id}")
def similarity_pair(
    request: Request,
    taught: InstructorAssignmentPage,
    slug: Slug,
    left_id: UserId,
    right_id: UserId,
    session: SessionDep,
) -> Any:
    course, assignment = taught.course, taught.assignment
    view = similarity.pair(session, course, assignment, slug, left_id, right_id)
    return _page(request, "similarity_pair.html", {"course": course, "assignment": assignment, "view": view})


router.include_router(assignment_pages.router)
router.include_router(regrade_pages.router)
