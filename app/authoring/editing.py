"""Changing a problem's working copy: creating a problem (its creator its author, an instructor's
for a course they teach), saving its draft, uploading a zip into it, discarding it.

A save stores the draft and nothing else: what learners see changes only on publishing
(:mod:`app.authoring.publishing`). A never-published problem lists its draft's title, difficulty,
category and Premium flag (only its authors see it)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring import archive, ownership, repository
from app.authoring.checking import check_files
from app.authoring.models import ProblemDraft
from app.authoring.working_copy import get_problem, live_version_of
from app.kit.errors import Conflict, Forbidden, InvalidInput
from app.problems import repository as problems_repository
from app.problems import visibility
from app.problems.models import Problem
from runner.format.problem import ProblemFiles


def store_draft(session: Session, problem: Problem, files: dict[str, str], user: User | None) -> ProblemDraft:
    """``files`` as the problem's draft (a new draft starts from the live version)."""
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
    store_draft(session, problem, parsed.files(), user)
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
    store_draft(session, problem, parsed.files(), user)
    if problem.current_version_id is None:
        _apply_listing(problem, parsed)
    session.flush()
    live = live_version_of(session, problem)
    return SaveOutcome(live_version=live.number if live else None, published=problem.published)


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
    store_draft(session, existing, parsed.files(), user)
    if existing.current_version_id is None:
        _apply_listing(existing, parsed)
    session.flush()
    return existing, False
