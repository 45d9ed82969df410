"""The instructor's editor (HTML): problem list with drafts, create/edit form, validate, publish,
the problem's owners. Every page acts only on problems the signed-in user owns (admins: all).

Everything works as plain form posts; ``authoring.js`` adds code editors, the live Markdown
preview (``/api/v1/authoring/preview``) and an in-page Validate (``/authoring/validate``).
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring import archive, checking, editing, listing, ownership, publishing, working_copy
from app.authoring.deps import AuthorUser, OwnerId
from app.authoring.forms import EditorForm, parse_form, with_unedited
from app.kit.errors import AppError, InvalidInput, PayloadTooLarge
from app.kit.web import CsrfProtected, RunnerDep, SessionDep, render
from app.problems import visibility
from app.problems.models import Problem
from runner.format.validation_report import ValidationReport

router = APIRouter(prefix="/authoring", tags=["authoring"])

NOTICES = {
    "created": "Draft created. Students do not see it until you publish.",
    "published": "Published: students now see the new live version.",
    "coauthor-added": "Co-author added: they can now edit, publish and unpublish this problem.",
    "coauthor-removed": "Co-author removed: they can no longer edit this problem.",
    "site-wide": "Published site-wide: the problem joins its track for every learner once published.",
    "course-only": "Course-only again: only its course sees this problem.",
    "unpublished": "Unpublished: students no longer see this problem. Its versions and submissions are kept.",
    "discarded": "Draft discarded: the editor shows the live version again.",
    "uploaded": "The zip was loaded into the draft. Validate it, then publish.",
}


KEPT_AS_DRAFT = " Your edits on screen were saved as the draft; students still see the live version."


async def editor_form(request: Request) -> EditorForm:
    return parse_form(await request.form())


EditorFormDep = Annotated[EditorForm, Depends(editor_form)]


async def course_choice(request: Request) -> int | None:
    """The new problem's course (``course_id`` field): None when left empty."""
    raw = str((await request.form()).get("course_id") or "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 2**31 - 1:
        raise InvalidInput("course_id must be the id of one of your courses.")
    return int(raw)


CourseChoice = Annotated[int | None, Depends(course_choice)]


def _editor(
    request: Request,
    session: Session,
    user: User,
    form: EditorForm,
    ws: working_copy.Workspace | None,
    *,
    report: ValidationReport | None = None,
    error: str | None = None,
    notice: str | None = None,
    status_code: int = 200,
) -> Any:
    return render(
        request,
        "authoring/edit.html",
        {
            "form": form,
            "ws": ws,
            "is_new": ws is None,
            "report": report,
            "error": error,
            "notice": notice,
            "difficulties": ("easy", "medium", "hard"),
            "tracks": checking.track_titles(session),
            "courses": visibility.courses_taught(session, user),
            "owners": ownership.owners(session, ws.problem) if ws is not None else [],
            "can_manage": ws is not None and ownership.can_manage(session, ws.problem, user),
            "is_admin": user.is_admin,
            "me": user.id,
        },
        status_code=status_code,
    )


def _to_editor(slug: str, notice: str, version: int | None = None) -> RedirectResponse:
    shown = f"&version={version}" if version is not None else ""
    return RedirectResponse(f"/authoring/problems/{slug}?notice={notice}{shown}", status_code=303)


def _list(
    request: Request, session: Session, user: User, error: str | None = None, status_code: int = 200
) -> Any:
    context = {
        "rows": listing.list_problems(session, user),
        "courses": visibility.courses_taught(session, user),
        "is_admin": user.is_admin,
        "error": error,
    }
    return render(request, "authoring/list.html", context, status_code=status_code)


@router.get("")
def problem_list(request: Request, user: AuthorUser, session: SessionDep) -> Any:
    return _list(request, session, user)


@router.get("/new")
def new_problem(request: Request, user: AuthorUser, session: SessionDep) -> Any:
    return _editor(request, session, user, EditorForm.blank(), None)


@router.post("/new", dependencies=[CsrfProtected])
def create_problem(
    request: Request, user: AuthorUser, session: SessionDep, form: EditorFormDep, course_id: CourseChoice
) -> Any:
    try:
        problem = editing.create(session, form.slug, form.files(), user, course_id)
    except AppError as exc:  # bad slug, format error, slug taken, no course: show it next to the form
        return _editor(request, session, user, form, None, error=exc.detail, status_code=exc.status_code)
    return _to_editor(problem.slug, "created")


@router.get("/problems/{slug}")
def edit_problem(
    request: Request,
    slug: str,
    user: AuthorUser,
    session: SessionDep,
    notice: Annotated[str | None, Query(max_length=20)] = None,
    version: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> Any:
    ws = working_copy.workspace(session, slug, user)
    shown = NOTICES.get(notice or "")
    if notice == "published" and version is not None:
        shown = f"Published: students now see version {version}."
    return _editor(request, session, user, EditorForm.from_files(slug, ws.files), ws, notice=shown)


@router.post("/problems/{slug}", dependencies=[CsrfProtected])
def save_problem(
    request: Request, slug: str, user: AuthorUser, session: SessionDep, form: EditorFormDep
) -> Any:
    """Save the draft only: what learners see changes on Publish, never here."""
    form.slug = slug
    try:
        current = working_copy.workspace(session, slug, user).files
        outcome = editing.save(session, slug, with_unedited(form.files(), current), user)
    except checking.InvalidProblem as exc:
        ws = working_copy.workspace(session, slug, user)
        return _editor(request, session, user, form, ws, error=exc.detail, status_code=422)
    ws = working_copy.workspace(session, slug, user)
    return _editor(request, session, user, EditorForm.from_files(slug, ws.files), ws, notice=outcome.message)


@router.post("/validate", dependencies=[CsrfProtected])
def validate_form(
    user: AuthorUser, session: SessionDep, runner: RunnerDep, form: EditorFormDep
) -> JSONResponse:
    """Validate the editor's unsaved content (JSON for authoring.js; nothing is stored)."""
    try:
        files = form.files()
    except checking.InvalidProblem as exc:
        return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=422)
    # An existing problem is validated with the files the form does not edit (its alternatives); a
    # new one (or one that is not the caller's) with the form's files alone.
    with contextlib.suppress(AppError):
        if form.slug:
            files = with_unedited(files, working_copy.workspace(session, form.slug, user).files)
    report = checking.validate(session, form.slug or "new-problem", user, runner, files)
    return JSONResponse({**report.to_dict(), "text": report.render()})


async def optional_editor_form(request: Request) -> EditorForm | None:
    """The editor form when Publish was pressed inside it; None for a bare publish (no fields)."""
    data = await request.form()
    return parse_form(data) if "toml_source" in data else None


@router.post("/problems/{slug}/publish", dependencies=[CsrfProtected])
def publish_problem(
    request: Request,
    slug: str,
    user: AuthorUser,
    session: SessionDep,
    runner: RunnerDep,
    form: Annotated[EditorForm | None, Depends(optional_editor_form)],
) -> Any:
    """Publish what is on screen: the posted form is saved, validated and published in one step."""
    try:
        if form is None:
            version = publishing.publish(session, slug, user, runner)
        else:
            form.slug = slug
            current = working_copy.workspace(session, slug, user).files
            version = publishing.publish_files(
                session, slug, with_unedited(form.files(), current), user, runner
            )
    except checking.InvalidProblem as exc:
        shown = form or EditorForm.from_files(slug, working_copy.workspace(session, slug, user).files)
        return _editor(
            request,
            session,
            user,
            shown,
            working_copy.workspace(session, slug, user),
            error=f"Not published, nothing saved: {exc.detail}",
            status_code=422,
        )
    except publishing.ValidationFailed as exc:
        ws = working_copy.workspace(session, slug, user)
        return _editor(
            request,
            session,
            user,
            EditorForm.from_files(slug, ws.files),
            ws,
            report=exc.report,
            error=exc.detail + (KEPT_AS_DRAFT if form else ""),
            status_code=422,
        )
    return _to_editor(slug, "published", version.number)


@router.post("/problems/{slug}/unpublish", dependencies=[CsrfProtected])
def unpublish_problem(slug: str, user: AuthorUser, session: SessionDep) -> Any:
    publishing.unpublish(session, slug, user)
    return _to_editor(slug, "unpublished")


@router.post("/problems/{slug}/site-wide", dependencies=[CsrfProtected])
def site_wide(
    slug: str, user: AuthorUser, session: SessionDep, site_wide: Annotated[bool, Form()] = True
) -> Any:
    """Admins only: publish a course-only problem site-wide, or take it back into its course."""
    publishing.set_site_wide(session, slug, user, site_wide)
    return _to_editor(slug, "site-wide" if site_wide else "course-only")


@router.post("/problems/{slug}/owners", dependencies=[CsrfProtected])
def add_owner(
    request: Request,
    slug: str,
    user: AuthorUser,
    session: SessionDep,
    email: Annotated[str, Form(max_length=254)],
) -> Any:
    problem = working_copy.get_problem(session, slug, user)
    try:
        ownership.add_coauthor(session, problem, user, email)
    except AppError as exc:  # unknown email, a student, already an owner: show it on the editor
        ws = working_copy.workspace(session, slug, user)
        form = EditorForm.from_files(slug, ws.files)
        return _editor(request, session, user, form, ws, error=exc.detail, status_code=exc.status_code)
    return _to_editor(slug, "coauthor-added")


@router.post("/problems/{slug}/owners/{user_id}/remove", dependencies=[CsrfProtected])
def remove_owner(slug: str, user_id: OwnerId, user: AuthorUser, session: SessionDep) -> Any:
    problem = working_copy.get_problem(session, slug, user)
    ownership.remove_coauthor(session, problem, user, user_id)
    if user_id == user.id and not user.is_admin:  # left the problem: its editor is not theirs any more
        return RedirectResponse("/authoring", status_code=303)
    return _to_editor(slug, "coauthor-removed")


@router.post("/problems/{slug}/discard", dependencies=[CsrfProtected])
def discard_draft(slug: str, user: AuthorUser, session: SessionDep) -> Any:
    editing.discard_draft(session, slug, user)
    return _to_editor(slug, "discarded")


@router.get("/problems/{slug}/download")
def download_zip(
    slug: str,
    user: AuthorUser,
    session: SessionDep,
    source: Annotated[Literal["working", "live", "draft"], Query()] = "working",
) -> Response:
    return Response(
        working_copy.export_zip(session, slug, user, source),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{slug}.zip"'},
    )


@router.post("/upload", dependencies=[CsrfProtected])
def upload_zip(
    request: Request,
    user: AuthorUser,
    session: SessionDep,
    file: Annotated[UploadFile, File()],
    slug: Annotated[str, Form(max_length=80)] = "",
    course_id: CourseChoice = None,
) -> Any:
    data = file.file.read(archive.MAX_ZIP_BYTES + 1)
    try:
        if len(data) > archive.MAX_ZIP_BYTES:
            raise PayloadTooLarge(f"The zip is larger than {archive.MAX_ZIP_BYTES // 1024} KiB.")
        problem: Problem
        problem, _created = editing.upload_zip(session, data, user, slug or None, course_id)
    except AppError as exc:
        return _list(request, session, user, error=exc.detail, status_code=exc.status_code)
    return _to_editor(problem.slug, "uploaded")
