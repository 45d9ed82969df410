"""Checks of an author's files before anything is written: the format (:func:`check_files`,
:class:`InvalidProblem` naming the file and line), validation in the sandbox (:func:`validate`,
no connection held meanwhile), and the Markdown previews, rendered as the pages render them."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring import archive
from app.authoring.validation import validate_folder_files
from app.authoring.working_copy import workspace
from app.kit.db import release_connection
from app.kit.errors import InvalidInput
from app.kit.markdown import render_markdown
from app.kit.runner import JudgeRunner
from app.kit.user_text import editorial_refusal, render_user_markdown
from app.problems import repository as problems_repository
from runner.format.problem import (
    EDITORIAL_FILE,
    MAX_FILE_BYTES,
    SLUG_RE,
    ProblemFiles,
    ProblemFormatError,
    build_problem,
)
from runner.format.validation_report import ValidationReport

MAX_PREVIEW_BYTES = MAX_FILE_BYTES


class InvalidProblem(InvalidInput):
    """The files do not form a problem folder (format error): names the file and line."""

    code = "invalid_problem"


def check_files(slug: str, files: dict[str, str]) -> ProblemFiles:
    """The problem the files describe, or :class:`InvalidProblem` naming the file and line (or an
    editorial that no post could hold: :func:`~app.kit.user_text.editorial_refusal`)."""
    if not SLUG_RE.match(slug):
        raise InvalidProblem(
            f"slug {slug!r} is not valid: 2-80 lowercase letters, digits and dashes, starting with a letter "
            "or digit (e.g. 'forward-hook-norms')."
        )
    for rel, text in files.items():
        if not archive.allowed_name(rel):
            raise InvalidProblem(f"{rel}: not a problem file; allowed are {archive.ALLOWED_FILES}")
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise InvalidProblem(f"{rel}: larger than {MAX_FILE_BYTES // 1024} KiB")
    refused = editorial_refusal(files.get(EDITORIAL_FILE, ""))
    if refused is not None:
        raise InvalidProblem(f"{EDITORIAL_FILE}: {refused}")
    try:
        return build_problem(slug, files)
    except ProblemFormatError as exc:
        raise InvalidProblem(str(exc)) from None


def preview(source: str, kind: str = "statement") -> str:
    """Sanitized HTML of an author's Markdown, exactly as the page that shows it renders it: a
    statement or learn section as the problem page does, an editorial as user text (the editorial
    page: ``app.kit.user_text``, no raw HTML, images only from this site)."""
    if len(source.encode("utf-8")) > MAX_PREVIEW_BYTES:
        raise InvalidInput(f"Markdown is limited to {MAX_PREVIEW_BYTES // 1024} KiB.")
    return render_user_markdown(source) if kind == "editorial" else render_markdown(source)


def track_titles(session: Session) -> list[str]:
    """The tracks a problem's category may name, in order: what the editor offers and checks."""
    return [t.title for t in problems_repository.tracks(session)]


def validate(
    session: Session, slug: str, user: User, runner: JudgeRunner, files: dict[str, str] | None = None
) -> ValidationReport:
    """Validate ``files`` (unsaved editor content: nothing stored is read) or else the problem's
    working copy (its owners' and admins' only)."""
    if files is None:
        files = workspace(session, slug, user).files
    titles = track_titles(session)
    release_connection(session)  # the sandbox takes seconds; no connection waits meanwhile
    return validate_folder_files(slug, files, runner, titles)
