"""Instructor-only JSON API: create, update, validate, publish, export and import problems, and
manage a problem's owners. Every route acts only on problems the caller owns (admins: all).

Errors follow the rest of ``/api``: ``{"error": code, "detail": message}``; a publish refused by
validation adds ``"report"`` (the same report the editor and ``torchdrill problems validate`` show).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Query, UploadFile
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from app.authoring import archive, checking, editing, listing, ownership, publishing, working_copy
from app.authoring.deps import AuthorUser, AuthorWriter, OwnerId, SlugPath
from app.kit.errors import PayloadTooLarge
from app.kit.paging import next_url
from app.kit.web import PageAfter, PageLimit, RunnerDep, SessionDep, SettingsDep
from runner.format.validation_report import ValidationReport

router = APIRouter(prefix="/api/v1/authoring", tags=["authoring"])

MAX_FILES = archive.MAX_ENTRIES
FilesField = Field(
    max_length=MAX_FILES,
    description="The problem folder as relative path -> text: problem.toml, statement.md, learn.md, "
    "starter.py, solution.py, tests.py, optional mutants/<name>.py and alternatives/<name>.py",
)


CourseField = Field(
    default=None,
    ge=1,
    le=2**31 - 1,
    description="the course the problem is for (one you teach): it is seen only inside that course; "
    "required of instructors, optional for admins (none: site-wide)",
)


class NewProblem(BaseModel):
    slug: str = Field(max_length=80, description="lowercase letters, digits and dashes")
    files: dict[str, str] = FilesField
    course_id: int | None = CourseField


class ProblemUpdate(BaseModel):
    files: dict[str, str] = FilesField


class ValidateRequest(BaseModel):
    files: dict[str, str] | None = Field(default=None, max_length=MAX_FILES, description="unsaved files")


class NewOwner(BaseModel):
    email: str = Field(max_length=254, description="the email of an instructor's account")


class SiteWide(BaseModel):
    site_wide: bool = Field(description="true: publish site-wide (public tracks); false: course-only again")


class MarkdownIn(BaseModel):
    markdown: str = Field(max_length=checking.MAX_PREVIEW_BYTES)
    kind: Literal["statement", "editorial"] = Field(
        default="statement",
        description="statement: as statements and learn sections render; editorial: as user text "
        "(no raw HTML, images only from this site), as the editorial page renders it",
    )


def _report(report: ValidationReport) -> dict[str, Any]:
    return {**report.to_dict(), "text": report.render()}


def _refused(exc: publishing.ValidationFailed) -> JSONResponse:
    body = {"error": exc.code, "detail": exc.detail, "report": _report(exc.report)}
    return JSONResponse(body, status_code=exc.status_code)


def _workspace_view(ws: working_copy.Workspace) -> dict[str, Any]:
    return {
        "slug": ws.problem.slug,
        "title": ws.problem.title,
        "published": ws.problem.published,
        "course_only": ws.problem.course_only,
        "course_id": ws.problem.course_id,
        "live_version": ws.live_version,
        "source": ws.source,
        "stale_draft": ws.stale,
        "versions": [{"number": n, "created_at": at.isoformat()} for _id, n, at in ws.versions],
        "files": ws.files,
        "url": f"/authoring/problems/{ws.problem.slug}",
    }


@router.get("/problems")
def list_problems(
    user: AuthorUser,
    session: SessionDep,
    settings: SettingsDep,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> dict[str, Any]:
    """The problems you own (admins: every one), drafts and unpublished ones first, by category and
    title; follow `next`."""
    size = min(limit or settings.api_page_size, 100)
    page = listing.page_of_problems(session, user, after, size)
    return {
        "problems": [
            {**asdict(r), "status": r.status, "updated_at": r.updated_at.isoformat()} for r in page.items
        ],
        "next": next_url("/api/v1/authoring/problems", {"limit": size}, page.cursor),
    }


@router.post("/problems", status_code=201)
def create_problem(body: NewProblem, user: AuthorWriter, session: SessionDep) -> dict[str, Any]:
    problem = editing.create(session, body.slug, body.files, user, body.course_id)
    return _workspace_view(working_copy.workspace(session, problem.slug, user))


@router.get("/problems/{slug}")
def get_problem(slug: SlugPath, user: AuthorUser, session: SessionDep) -> dict[str, Any]:
    return _workspace_view(working_copy.workspace(session, slug, user))


@router.put("/problems/{slug}")
def update_problem(
    slug: SlugPath, body: ProblemUpdate, user: AuthorWriter, session: SessionDep
) -> dict[str, Any]:
    """Save the draft. Learners keep seeing the live version (``live_version``) until you publish."""
    outcome = editing.save(session, slug, body.files, user)
    return {"saved": True, "message": outcome.message, "live_version": outcome.live_version}


@router.post("/problems/{slug}/validate")
def validate_problem(
    slug: SlugPath,
    user: AuthorWriter,
    session: SessionDep,
    runner: RunnerDep,
    body: ValidateRequest | None = None,
) -> dict[str, Any]:
    """Validate unsaved ``files`` or else the working copy. 200 with ``ok: false`` when it fails."""
    return _report(checking.validate(session, slug, user, runner, body.files if body else None))


@router.post("/problems/{slug}/publish", response_model=None)
def publish_problem(slug: SlugPath, user: AuthorWriter, session: SessionDep, runner: RunnerDep) -> Any:
    try:
        version = publishing.publish(session, slug, user, runner)
    except publishing.ValidationFailed as exc:
        return _refused(exc)
    return {
        "slug": slug,
        "published": True,
        "live_version": version.number,
        "message": f"Published: students now see version {version.number}.",
    }


@router.post("/problems/{slug}/unpublish")
def unpublish_problem(slug: SlugPath, user: AuthorWriter, session: SessionDep) -> dict[str, Any]:
    problem = publishing.unpublish(session, slug, user)
    return {"slug": slug, "published": problem.published}


@router.put("/problems/{slug}/site-wide")
def set_site_wide(slug: SlugPath, body: SiteWide, user: AuthorWriter, session: SessionDep) -> dict[str, Any]:
    """Admins only: publish a course-only problem site-wide, or take it back into its course."""
    problem = publishing.set_site_wide(session, slug, user, body.site_wide)
    return {"slug": slug, "course_only": problem.course_only, "course_id": problem.course_id}


@router.get("/problems/{slug}/owners")
def list_owners(slug: SlugPath, user: AuthorUser, session: SessionDep) -> dict[str, Any]:
    """Who may edit the problem: its author and co-authors."""
    problem = working_copy.get_problem(session, slug, user)
    return {"owners": [_owner_view(o) for o in ownership.owners(session, problem)]}


@router.post("/problems/{slug}/owners", status_code=201)
def add_owner(slug: SlugPath, body: NewOwner, user: AuthorWriter, session: SessionDep) -> dict[str, Any]:
    """The author (or an admin) adds an instructor as co-author."""
    problem = working_copy.get_problem(session, slug, user)
    return _owner_view(ownership.add_coauthor(session, problem, user, body.email))


@router.delete("/problems/{slug}/owners/{user_id}", status_code=204)
def remove_owner(slug: SlugPath, user_id: OwnerId, user: AuthorWriter, session: SessionDep) -> Response:
    """The author (or an admin) removes a co-author; a co-author may remove themselves."""
    problem = working_copy.get_problem(session, slug, user)
    ownership.remove_coauthor(session, problem, user, user_id)
    return Response(status_code=204)


def _owner_view(owner: ownership.OwnerView) -> dict[str, Any]:
    return {**asdict(owner), "added_at": owner.added_at.isoformat()}


@router.delete("/problems/{slug}/draft", status_code=204)
def discard_draft(slug: SlugPath, user: AuthorWriter, session: SessionDep) -> Response:
    editing.discard_draft(session, slug, user)
    return Response(status_code=204)


@router.get("/problems/{slug}/export", response_model=None)
def export_problem(
    slug: SlugPath,
    user: AuthorUser,
    session: SessionDep,
    source: Annotated[Literal["working", "live", "draft"], Query(description="which copy")] = "working",
    format: Annotated[Literal["zip", "json"], Query()] = "zip",
) -> Any:
    if format == "json":
        return {
            "slug": slug,
            "source": source,
            "files": working_copy.export_files(session, slug, user, source),
        }
    data = working_copy.export_zip(session, slug, user, source)
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{slug}.zip"'},
    )


@router.post("/import")
def import_zip(
    user: AuthorWriter,
    session: SessionDep,
    file: Annotated[UploadFile, File(description="a zip of one problem folder")],
    slug: Annotated[str | None, Form(max_length=80)] = None,
    course_id: Annotated[int | None, Form(ge=1, le=2**31 - 1)] = None,
) -> JSONResponse:
    """Upload a problem zip into a draft (a new problem for ``course_id``, or the named/zipped one's
    working copy, which must be yours)."""
    data = file.file.read(archive.MAX_ZIP_BYTES + 1)
    if len(data) > archive.MAX_ZIP_BYTES:
        raise PayloadTooLarge(f"The zip is larger than {archive.MAX_ZIP_BYTES // 1024} KiB.")
    problem, created = editing.upload_zip(session, data, user, slug or None, course_id)
    view = _workspace_view(working_copy.workspace(session, problem.slug, user))
    return JSONResponse(view, status_code=201 if created else 200)


@router.post("/preview")
def preview_markdown(body: MarkdownIn, user: AuthorUser) -> dict[str, str]:
    """Markdown rendered exactly as the page that shows it will (server-side, sanitized)."""
    return {"html": checking.preview(body.markdown, body.kind)}
