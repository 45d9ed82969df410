"""The instructor's editor (HTML): problem list with drafts, create/edit form, validate, publish.

Everything works as plain form posts; ``authoring.js`` adds code editors, the live Markdown
preview (``/api/v1/authoring/preview``) and an in-page Validate (``/authoring/validate``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.authoring import archive, service
from app.authoring.deps import AuthorUser
from app.authoring.forms import EditorForm, parse_form
from app.kit.errors import AppError, PayloadTooLarge
from app.kit.web import CsrfProtected, RunnerDep, SessionDep, render
from app.problems.models import Problem
from runner.format.validate import ValidationReport

router = APIRouter(prefix="/authoring", tags=["authoring"])

NOTICES = {
    "created": "Draft created. Students do not see it until you publish.",
    "published": "Published: students now see the new live version.",
    "unpublished": "Unpublished: students no longer see this problem. Its versions and submissions are kept.",
    "discarded": "Draft discarded: the editor shows the live version again.",
    "uploaded": "The zip was loaded into the draft. Validate it, then publish.",
}


KEPT_AS_DRAFT = " Your edits on screen were saved as the draft; students still see the live version."


async def editor_form(request: Request) -> EditorForm:
    return parse_form(await request.form())


EditorFormDep = Annotated[EditorForm, Depends(editor_form)]


def _editor(
    request: Request,
    session: Session,
    form: EditorForm,
    ws: service.Workspace | None,
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
            "tracks": service.track_titles(session),
        },
        status_code=status_code,
    )


def _to_editor(slug: str, notice: str) -> RedirectResponse:
    return RedirectResponse(f"/authoring/problems/{slug}?notice={notice}", status_code=303)


@router.get("")
def problem_list(request: Request, user: AuthorUser, session: SessionDep) -> Any:
    return render(request, "authoring/list.html", {"rows": service.list_problems(session)})


@router.get("/new")
def new_problem(request: Request, user: AuthorUser, session: SessionDep) -> Any:
    return _editor(request, session, EditorForm.blank(), None)


@router.post("/new", dependencies=[CsrfProtected])
def create_problem(request: Request, user: AuthorUser, session: SessionDep, form: EditorFormDep) -> Any:
    try:
        problem = service.create(session, form.slug, form.files(), user)
    except AppError as exc:  # bad slug, format error, slug taken: show it next to the form
        return _editor(request, session, form, None, error=exc.detail, status_code=exc.status_code)
    return _to_editor(problem.slug, "created")


@router.get("/problems/{slug}")
def edit_problem(
    request: Request,
    slug: str,
    user: AuthorUser,
    session: SessionDep,
    notice: Annotated[str | None, Query(max_length=20)] = None,
) -> Any:
    ws = service.workspace(session, slug)
    return _editor(
        request, session, EditorForm.from_files(slug, ws.files), ws, notice=NOTICES.get(notice or "")
    )


@router.post("/problems/{slug}", dependencies=[CsrfProtected])
def save_problem(
    request: Request, slug: str, user: AuthorUser, session: SessionDep, runner: RunnerDep, form: EditorFormDep
) -> Any:
    form.slug = slug
    try:
        outcome = service.save(session, slug, form.files(), user, runner)
    except service.InvalidProblem as exc:
        return _editor(
            request, session, form, service.workspace(session, slug), error=exc.detail, status_code=422
        )
    ws = service.workspace(session, slug)
    failed = outcome.report is not None and not outcome.report.ok
    return _editor(
        request,
        session,
        EditorForm.from_files(slug, ws.files),
        ws,
        report=outcome.report,
        notice=outcome.message,
        status_code=422 if failed else 200,
    )


@router.post("/validate", dependencies=[CsrfProtected])
def validate_form(
    user: AuthorUser, session: SessionDep, runner: RunnerDep, form: EditorFormDep
) -> JSONResponse:
    """Validate the editor's unsaved content (JSON for authoring.js; nothing is stored)."""
    try:
        files = form.files()
    except service.InvalidProblem as exc:
        return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=422)
    report = service.validate(session, form.slug or "new-problem", runner, files)
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
            service.publish(session, slug, user, runner)
        else:
            form.slug = slug
            service.publish_files(session, slug, form.files(), user, runner)
    except service.InvalidProblem as exc:
        shown = form or EditorForm.from_files(slug, service.workspace(session, slug).files)
        return _editor(
            request,
            session,
            shown,
            service.workspace(session, slug),
            error=f"Not published, nothing saved: {exc.detail}",
            status_code=422,
        )
    except service.ValidationFailed as exc:
        ws = service.workspace(session, slug)
        return _editor(
            request,
            session,
            EditorForm.from_files(slug, ws.files),
            ws,
            report=exc.report,
            error=exc.detail + (KEPT_AS_DRAFT if form else ""),
            status_code=422,
        )
    return _to_editor(slug, "published")


@router.post("/problems/{slug}/unpublish", dependencies=[CsrfProtected])
def unpublish_problem(slug: str, user: AuthorUser, session: SessionDep) -> Any:
    service.unpublish(session, slug)
    return _to_editor(slug, "unpublished")


@router.post("/problems/{slug}/discard", dependencies=[CsrfProtected])
def discard_draft(slug: str, user: AuthorUser, session: SessionDep) -> Any:
    service.discard_draft(session, slug)
    return _to_editor(slug, "discarded")


@router.get("/problems/{slug}/download")
def download_zip(
    slug: str,
    user: AuthorUser,
    session: SessionDep,
    source: Annotated[Literal["working", "live", "draft"], Query()] = "working",
) -> Response:
    return Response(
        service.export_zip(session, slug, source),
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
) -> Any:
    data = file.file.read(archive.MAX_ZIP_BYTES + 1)
    try:
        if len(data) > archive.MAX_ZIP_BYTES:
            raise PayloadTooLarge(f"The zip is larger than {archive.MAX_ZIP_BYTES // 1024} KiB.")
        problem: Problem
        problem, _created = service.upload_zip(session, data, user, slug or None)
    except AppError as exc:
        rows = service.list_problems(session)
        return render(
            request, "authoring/list.html", {"rows": rows, "error": exc.detail}, status_code=exc.status_code
        )
    return _to_editor(problem.slug, "uploaded")
