"""Instructor authoring: working copies (drafts), validation, publishing and versions.

A problem has at most one *draft* (its working copy, ``ProblemDraft``) and zero or more immutable
*versions*; learners only ever see the current version of a published problem. The rules:

- creating a problem stores a draft and an unpublished ``Problem`` row: invisible to students.
  Its creator is its author (``ownership.py``). An instructor's problem is course-only: it names a
  course they teach and is seen only inside it; an admin's may be site-wide;
- saving stores the draft and nothing else: what learners see never changes on a save;
- publishing validates the working copy, turns it into version N+1 (the importer's
  ``import_problem``, so files and hashes match the bank import exactly) and drops the draft;
  earlier submissions keep pointing at the version they ran;
- unpublishing hides the problem again; versions and submissions stay;
- only an admin publishes a course-only problem site-wide (then it joins its category's track).

Every function that reads or changes a problem takes the acting user and goes through
``ownership.editable``: owners and admins only.

Validation runs before anything is written, so no write transaction is held while the sandbox works.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring import archive, ownership, repository
from app.authoring.models import ProblemDraft
from app.authoring.validation import validate_files, validate_folder_files
from app.kit.db import release_connection
from app.kit.errors import AppError, Conflict, Forbidden, InvalidInput, NotFound
from app.kit.markdown import render_markdown
from app.kit.paging import Page, decode_cursor, page_of
from app.kit.runner import JudgeRunner
from app.kit.user_text import render_user_markdown
from app.problems import repository as problems_repository
from app.problems import visibility
from app.problems.importer import import_problem
from app.problems.models import Problem, ProblemVersion
from runner.format.problem import MAX_FILE_BYTES, SLUG_RE, ProblemFiles, ProblemFormatError, build_problem
from runner.format.validation_report import ValidationReport
from runner.jobs import Expectations, Job, JudgeResult, Mode

MAX_PREVIEW_BYTES = MAX_FILE_BYTES
Source = Literal["working", "draft", "live"]


class InvalidProblem(InvalidInput):
    """The files do not form a problem folder (format error): names the file and line."""

    code = "invalid_problem"


class ValidationFailed(AppError):
    """Validation in the sandbox refused the problem; ``report`` says why, file by file."""

    status_code = 422
    code = "validation_failed"

    def __init__(self, report: ValidationReport) -> None:
        self.report = report
        causes = "; ".join(str(f) for f in report.errors[:3])
        more = f" (and {len(report.errors) - 3} more)" if len(report.errors) > 3 else ""
        super().__init__(f"Problem {report.slug!r} did not pass validation: {causes}{more}")


# ---- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProblemRow:
    slug: str
    title: str
    difficulty: str
    category: str
    published: bool
    premium: bool
    live_version: int | None
    has_draft: bool
    updated_at: datetime
    course_only: bool

    @property
    def status(self) -> str:
        if self.published and self.live_version is not None:
            return "published" + (" (unpublished changes)" if self.has_draft else "")
        return "draft" if self.live_version is None else "unpublished"


def _owner_filter(user: User) -> int | None:
    """Admins list every problem; an instructor the problems they own."""
    return None if user.is_admin else user.id


def list_problems(session: Session, user: User) -> list[ProblemRow]:
    """The problems ``user`` may edit, drafts and unpublished ones included."""
    every = repository.list_all_problems(session, owner_id=_owner_filter(user))
    drafts = repository.drafts_by_problem(session, [p.id for p in every])
    return _rows(every, drafts, repository.version_numbers(session))


AUTHORING_KEY = (bool, str, str, int)  # the shape of repository.AuthoringKey, for decoding a cursor


def page_of_problems(session: Session, user: User, after: str | None, limit: int) -> Page[ProblemRow]:
    """One page of :func:`list_problems` (same order) after the cursor ``after``; only the page's
    drafts and versions are read."""
    key = decode_cursor(after, AUTHORING_KEY) if after else None
    found = page_of(
        repository.list_all_problems(session, owner_id=_owner_filter(user), after=key, limit=limit + 1),
        limit,
        repository.authoring_key,
    )
    drafts = repository.drafts_by_problem(session, [p.id for p in found.items])
    numbers = repository.version_numbers(
        session, [p.current_version_id for p in found.items if p.current_version_id]
    )
    return Page(_rows(found.items, drafts, numbers), found.cursor)


def _rows(
    problems: Sequence[Problem], drafts: dict[int, ProblemDraft], numbers: dict[int, int]
) -> list[ProblemRow]:
    return [
        ProblemRow(
            slug=p.slug,
            title=p.title,
            difficulty=p.difficulty,
            category=p.category,
            published=p.published,
            premium=p.premium,
            live_version=numbers.get(p.current_version_id) if p.current_version_id else None,
            has_draft=p.id in drafts,
            updated_at=max(p.updated_at, drafts[p.id].updated_at) if p.id in drafts else p.updated_at,
            course_only=p.course_only,
        )
        for p in problems
    ]


def get_problem(session: Session, slug: str, user: User) -> Problem:
    """The problem, if ``user`` may edit it (``ownership.editable``: 403 or 404 otherwise)."""
    return ownership.editable(session, slug, user)


def _live_version(session: Session, problem: Problem) -> ProblemVersion | None:
    if problem.current_version_id is None:
        return None
    return problems_repository.get_version(session, problem.current_version_id)


@dataclass(frozen=True)
class Workspace:
    """What the editor shows: the working copy and where it comes from."""

    problem: Problem
    files: dict[str, str]
    source: Literal["draft", "live"]
    live_version: int | None
    draft_base_version: int | None
    versions: list[tuple[int, int, datetime]]

    @property
    def stale(self) -> bool:
        """The draft was started from an older version than the live one (e.g. a newer import)."""
        return (
            self.source == "draft"
            and self.live_version is not None
            and (self.draft_base_version != self.live_version)
        )

    @property
    def has_draft(self) -> bool:
        return self.source == "draft"


def workspace(session: Session, slug: str, user: User) -> Workspace:
    return _workspace(session, get_problem(session, slug, user))


def _workspace(session: Session, problem: Problem) -> Workspace:
    draft = repository.get_draft(session, problem.id)
    live = _live_version(session, problem)
    history = repository.version_history(session, problem.id)
    numbers = {vid: number for vid, number, _ in history}
    if draft is not None:
        base = numbers.get(draft.base_version_id) if draft.base_version_id is not None else None
        return Workspace(problem, dict(draft.files), "draft", live.number if live else None, base, history)
    if live is None:
        raise NotFound(f"Problem {problem.slug!r} has neither a draft nor a version.")
    return Workspace(problem, dict(live.files), "live", live.number, None, history)


def export_files(session: Session, slug: str, user: User, source: Source = "live") -> dict[str, str]:
    """The files of the live version, of the draft, or of whichever the editor shows (working)."""
    return _files_of(session, get_problem(session, slug, user), source)


def export_files_as_operator(session: Session, slug: str, source: Source = "live") -> dict[str, str]:
    """:func:`export_files` for ``torchdrill problems export``, run on the server with the database's
    own credentials (an operator, above every site role): it reads, never changes."""
    problem = problems_repository.get_by_slug(session, slug)
    if problem is None:
        raise NotFound(f"There is no problem called {slug[:80]!r}.")
    return _files_of(session, problem, source)


def _files_of(session: Session, problem: Problem, source: Source) -> dict[str, str]:
    slug = problem.slug
    if source == "live":
        live = _live_version(session, problem)
        if live is None:
            raise NotFound(f"Problem {slug!r} has no published version yet; export its draft instead.")
        return dict(live.files)
    if source == "draft":
        draft = repository.get_draft(session, problem.id)
        if draft is None:
            raise NotFound(f"Problem {slug!r} has no draft; export its live version instead.")
        return dict(draft.files)
    return _workspace(session, problem).files


def export_zip(session: Session, slug: str, user: User, source: Source = "working") -> bytes:
    return archive.to_zip(slug, export_files(session, slug, user, source))


# ---- checking --------------------------------------------------------------------------------


def check_files(slug: str, files: dict[str, str]) -> ProblemFiles:
    """The problem the files describe, or :class:`InvalidProblem` naming the file and line."""
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


# ---- writing ---------------------------------------------------------------------------------


class _Precomputed:
    """The runner, but expectations just computed by validation are not computed a second time."""

    def __init__(self, runner: JudgeRunner, problem: ProblemFiles, expectations: Expectations) -> None:
        self._runner = runner
        self._problem = problem
        self._expectations = expectations

    def compute_expectations(self, problem: ProblemFiles) -> Expectations:
        if problem == self._problem:
            return self._expectations
        return self._runner.compute_expectations(problem)

    def judge(self, job: Job) -> JudgeResult:
        return self._runner.judge(job)

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job:
        return problem.job(expectations, code, mode, job_id)

    def runtime_info(self) -> dict[str, str]:
        return self._runner.runtime_info()

    def ready(self) -> bool:
        return self._runner.ready()


def _store_draft(
    session: Session, problem: Problem, files: dict[str, str], user: User | None
) -> ProblemDraft:
    draft = repository.get_draft(session, problem.id)
    if draft is None:
        draft = ProblemDraft(problem_id=problem.id, base_version_id=problem.current_version_id)
    draft.files = dict(files)
    draft.updated_by_id = user.id if user is not None else None
    return repository.save_draft(session, draft)


def _apply_listing(problem: Problem, files: ProblemFiles) -> None:
    """A never-published problem lists its draft's metadata (only instructors see it)."""
    problem.title = files.title
    problem.difficulty = files.difficulty
    problem.category = files.category
    problem.premium = files.premium


def course_for_new_problem(session: Session, user: User, course_id: int | None) -> int | None:
    """The course a new problem is for: required of instructors (one they teach); an admin's
    problem without one is site-wide."""
    if course_id is None:
        if user.is_admin:
            return None
        raise InvalidInput(
            "Choose the course this problem is for: an instructor's problems are seen only inside "
            "their course (an admin can publish one site-wide later)."
        )
    if not visibility.teaches(session, course_id, user):
        raise InvalidInput(f"You do not teach a course #{course_id}: choose one of your courses.")
    return course_id


def create(
    session: Session, slug: str, files: dict[str, str], user: User, course_id: int | None = None
) -> Problem:
    """A new, unpublished problem whose working copy is ``files`` (format-checked, not run); its
    creator is its author. ``course_id``: the course it is for (course-only), see
    :func:`course_for_new_problem`."""
    require_author(user)
    parsed = check_files(slug, files)
    course = course_for_new_problem(session, user, course_id)
    if problems_repository.get_by_slug(session, slug) is not None:
        raise Conflict(f"A problem called {slug!r} already exists: edit it, or choose another slug.")
    problem = Problem(slug=slug, published=False, course_only=course is not None, course_id=course)
    _apply_listing(problem, parsed)
    try:
        with session.begin_nested():
            problems_repository.add(session, problem)
    except IntegrityError:  # created by someone else between the check and the insert
        raise Conflict(
            f"A problem called {slug!r} already exists: edit it, or choose another slug."
        ) from None
    _store_draft(session, problem, parsed.files(), user)
    ownership.make_author(session, problem, user)
    return problem


def require_author(user: User) -> None:
    if not user.is_staff:
        raise Forbidden("Only instructors and admins author problems.")


@dataclass(frozen=True)
class SaveOutcome:
    live_version: int | None  # what learners still see (None: nothing published yet)
    published: bool

    @property
    def message(self) -> str:
        if self.live_version is None or not self.published:
            return "Saved as a draft. Students do not see it until you publish."
        return f"Saved as a draft. Students still see version {self.live_version} until you publish."


def save(session: Session, slug: str, files: dict[str, str], user: User) -> SaveOutcome:
    """Store the working copy, and nothing else: what learners see changes only on Publish."""
    problem = get_problem(session, slug, user)
    parsed = check_files(slug, files)
    _store_draft(session, problem, parsed.files(), user)
    if problem.current_version_id is None:
        _apply_listing(problem, parsed)
    session.flush()
    live = _live_version(session, problem)
    return SaveOutcome(live_version=live.number if live else None, published=problem.published)


def _publish_parsed(
    session: Session, problem: Problem, parsed: ProblemFiles, report: ValidationReport, runner: JudgeRunner
) -> ProblemVersion:
    """Make validated files the live version (a new one unless identical to the latest)."""
    assert report.ok and report.expectations is not None
    import_problem(session, parsed, _Precomputed(runner, parsed, report.expectations))
    problem.published = True
    repository.delete_draft(session, problem.id)
    version = _live_version(session, problem)
    assert version is not None, "import_problem always leaves a current version"
    return version


def publish(session: Session, slug: str, user: User, runner: JudgeRunner) -> ProblemVersion:
    """Validate the working copy and make it the live version; raises :class:`ValidationFailed`."""
    problem = get_problem(session, slug, user)
    files = _workspace(session, problem).files
    parsed = check_files(slug, files)
    titles = track_titles(session)
    release_connection(session)  # no connection held while the sandbox runs
    report = validate_files(parsed, runner, titles)
    if not report.ok:
        raise ValidationFailed(report)
    return _publish_parsed(session, problem, parsed, report, runner)


def publish_files(
    session: Session, slug: str, files: dict[str, str], user: User, runner: JudgeRunner
) -> ProblemVersion:
    """Publish exactly the files on the author's screen (the editor form), not the last saved draft.

    A refusal keeps those files as the draft, so an unsaved edit is never lost by pressing Publish.
    """
    problem = get_problem(session, slug, user)
    parsed = check_files(slug, files)
    titles = track_titles(session)
    release_connection(session)  # before any write: no lock, no connection while the sandbox runs
    report = validate_files(parsed, runner, titles)
    if not report.ok:
        _store_draft(session, problem, parsed.files(), user)
        session.flush()
        raise ValidationFailed(report)
    return _publish_parsed(session, problem, parsed, report, runner)


def unpublish(session: Session, slug: str, user: User) -> Problem:
    problem = get_problem(session, slug, user)
    problem.published = False
    session.flush()
    return problem


def set_site_wide(session: Session, slug: str, user: User, site_wide: bool) -> Problem:
    """Admins only: publish a course-only problem site-wide (it joins its category's public track
    once published), or make a problem of a course course-only again."""
    problem = get_problem(session, slug, user)
    if not user.is_admin:
        raise Forbidden("Only an admin publishes a problem site-wide or takes it back into its course.")
    if not site_wide and problem.course_id is None:
        raise Conflict(f"Problem {slug!r} belongs to no course, so it cannot be made course-only.")
    problem.course_only = not site_wide
    session.flush()
    return problem


def discard_draft(session: Session, slug: str, user: User) -> None:
    problem = get_problem(session, slug, user)
    if problem.current_version_id is None:
        raise Conflict(f"Problem {slug!r} has never been published: its draft is all there is.")
    repository.delete_draft(session, problem.id)


def upload_zip(
    session: Session, data: bytes, user: User, slug: str | None = None, course_id: int | None = None
) -> tuple[Problem, bool]:
    """Put an uploaded problem zip into a draft (creating the problem if new): (problem, created).

    ``slug`` names the target; without it, the zip's top-level folder does. An existing problem
    must be one ``user`` may edit; a new one is created as by :func:`create` (``course_id``).
    """
    zip_slug, files = archive.from_zip(data)
    target = slug or zip_slug
    if target is None:
        raise archive.ArchiveError(
            "The zip has no top-level <slug>/ folder, so it does not say which problem it is: "
            "upload it from the problem's page, or zip the folder itself."
        )
    if problems_repository.get_by_slug(session, target) is None:
        return create(session, target, files, user, course_id), True
    existing = get_problem(session, target, user)
    parsed = check_files(target, files)
    _store_draft(session, existing, parsed.files(), user)
    if existing.current_version_id is None:
        _apply_listing(existing, parsed)
    session.flush()
    return existing, False
