"""Import the problem bank (``problems/<slug>/``) into the database.

Idempotent: a problem whose files are unchanged gets no new version; a changed one gets version
N+1 and becomes current; older versions stay, so submissions keep the version they ran against.
Expected values are computed by running the reference solution in the sandbox at import time.
The bank's ``tracks.toml`` is imported first (tracks are added or updated, never removed), and a
problem whose category names no track is refused.

Usable without the ``torchdrill`` CLI::

    python -m app.problems.importer [BANK_DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.orm import Session

from app.kit.runner import JudgeRunner, default_runner, expectation_error_types
from app.kit.user_text import editorial_refusal
from app.problems import repository
from app.problems.models import Problem, ProblemTag, ProblemVersion, Track
from runner.jobs import JUDGE_FORMAT
from runner.format.problem import (
    EDITORIAL_FILE,
    ProblemFiles,
    ProblemFormatError,
    discover_problems,
    load_problem_dir,
)
from runner.format.tracks import TrackSpec, load_tracks, unknown_category


def content_hash(files: dict[str, str]) -> str:
    canonical = json.dumps(files, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        lines = [
            f"created {len(self.created)}, updated {len(self.updated)}, unchanged {len(self.unchanged)}, "
            f"failed {len(self.errors)}"
        ]
        lines += [f"  + {slug}" for slug in self.created]
        lines += [f"  ~ {slug} (new version)" for slug in self.updated]
        lines += [f"  ! {slug}: {message}" for slug, message in self.errors.items()]
        return "\n".join(lines)


def sync_tracks(session: Session, specs: list[TrackSpec]) -> None:
    """Add or update the tracks of a bank's ``tracks.toml`` (matched by slug; none is removed)."""
    for spec in specs:
        track = repository.track_by_slug(session, spec.slug) or Track(slug=spec.slug)
        track.title, track.position, track.description = spec.title, spec.order, spec.description
        repository.add(session, track)


def track_for(session: Session, files: ProblemFiles) -> Track:
    """The track ``files.category`` names; a format error naming the known tracks otherwise."""
    track = repository.track_by_title(session, files.category)
    if track is None:
        titles = [t.title for t in repository.tracks(session)]
        raise ProblemFormatError(unknown_category(files.category, titles) or "", "problem.toml")
    return track


def _apply_metadata(problem: Problem, files: ProblemFiles, track: Track) -> None:
    problem.title = files.title
    problem.track_id = track.id
    problem.position = files.order
    problem.difficulty = files.difficulty
    problem.category = files.category
    problem.premium = files.premium
    wanted = list(dict.fromkeys(files.tags))
    existing = {t.tag: t for t in problem.tags}
    problem.tags = [existing.get(tag) or ProblemTag(tag=tag) for tag in wanted]
    for position, tag in enumerate(problem.tags):
        tag.position = position


def import_problem(session: Session, files: ProblemFiles, runner: JudgeRunner) -> str:
    """Import one validated problem; returns "created", "updated" or "unchanged".

    Raises the runner's ExpectationError when the reference solution does not run, and
    ProblemFormatError when its category names no track or its editorial is one no post could
    hold (``app.kit.user_text.editorial_refusal``).
    """
    refused = editorial_refusal(files.editorial)
    if refused is not None:  # shown as user text: the rules of posts (saving refuses it first)
        raise ProblemFormatError(refused, EDITORIAL_FILE)
    track = track_for(session, files)
    snapshot = files.files()
    digest = content_hash(snapshot)
    problem = repository.get_by_slug(session, files.slug)
    latest = repository.latest_version(session, problem.id) if problem is not None else None
    current = (
        latest is not None and int((latest.expectations or {}).get("judge_format", 0)) >= JUDGE_FORMAT
    )  # expectations computed by an older judge are recomputed, as a new version of the same files
    if problem is not None and latest is not None and latest.content_hash == digest and current:
        problem.current_version_id = latest.id
        problem.track_id, problem.position = track.id, files.order  # a track renamed or re-created
        session.flush()
        return "unchanged"
    expectations = runner.compute_expectations(files)  # before this problem's writes
    outcome = "updated"
    if problem is None:
        problem = Problem(slug=files.slug, published=True)
        outcome = "created"
    _apply_metadata(problem, files, track)
    repository.add(session, problem)
    version = ProblemVersion(
        problem_id=problem.id,
        number=(latest.number + 1) if latest is not None else 1,
        content_hash=digest,
        files=snapshot,
        expectations=expectations.to_dict(),
    )
    repository.add(session, version)
    problem.current_version_id = version.id
    session.flush()
    return outcome


def not_the_banks(session: Session, slug: str) -> str | None:
    """Why a bank import must not overwrite problem ``slug`` (None: it may): a problem authored on the
    site (it has owners) or course-only belongs to its authors, never to whoever holds a folder of
    that name. Its authors and admins change it through authoring."""
    problem = repository.get_by_slug(session, slug)
    if problem is None:
        return None
    if problem.course_only or repository.has_owners(session, problem.id):
        return (
            f"{slug!r} was authored on the site (it has owners or is course-only): the bank import does not "
            "overwrite it; edit it in authoring, or give the folder another slug"
        )
    return None


def import_bank(session: Session, bank_dir: str | Path, runner: JudgeRunner | None = None) -> ImportReport:
    """Import every problem folder in ``bank_dir``; a bad problem is reported, the rest still import.

    Only flushes: the caller's transaction commits (``Database.transaction()`` or the CLI's).
    """
    root = Path(bank_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"problem bank {str(root)!r} is not a directory")
    runner = runner or default_runner()
    report = ImportReport()
    specs = load_tracks(root)  # a malformed tracks.toml stops the import: every problem depends on it
    if specs is not None:
        sync_tracks(session, specs)
    expectation_errors = expectation_error_types()
    for folder in discover_problems(root):
        slug = folder.name
        refusal = not_the_banks(session, slug)
        if refusal is not None:
            report.errors[slug] = refusal
            continue
        try:
            files = load_problem_dir(folder)
            with session.begin_nested():
                outcome = import_problem(session, files, runner)
        except ProblemFormatError as exc:
            report.errors[slug] = str(exc)
            continue
        except expectation_errors as exc:
            report.errors[slug] = f"reference solution failed: {exc}"
            continue
        getattr(report, outcome).append(slug)
    return report


def main(argv: list[str] | None = None) -> int:
    from app.kit.db import Database
    from app.kit.settings import get_settings

    settings = get_settings()
    parser = argparse.ArgumentParser(
        prog="python -m app.problems.importer", description=__doc__.splitlines()[0]
    )
    parser.add_argument("bank", nargs="?", default=str(settings.problems_dir), help="problem bank folder")
    args = parser.parse_args(argv)
    db = Database(settings.database_url)
    try:
        with db.transaction() as session:
            report = import_bank(session, args.bank, default_runner())
    except (FileNotFoundError, ProblemFormatError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        db.dispose()
    print(report.summary())
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
