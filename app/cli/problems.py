"""``torchdrill problems``: list (through the API), validate, import and export problem folders.

``validate`` is the one validation (``app.authoring.validation``: the runner's sandbox checks plus
the Markdown checks); ``import`` and ``export`` round-trip a folder exactly: ``export`` writes the
stored files byte for byte, ``import`` of an unchanged folder creates no new version.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from torchdrill.commands import command, list_problems
from torchdrill.output import echo

from app.kit.runner import JudgeRunner
from app.kit.words import count

if TYPE_CHECKING:
    from runner.format.tracks import TrackSpec

app = typer.Typer(help="Problems: list (API), validate, import, export.", invoke_without_command=True)


@app.callback()
def problems(ctx: typer.Context) -> None:
    """Without a sub-command: list the server's problems (after `torchdrill login`)."""
    if ctx.invoked_subcommand is not None:
        return
    command(list_problems)()


def _folders(dirs: list[Path]) -> list[Path]:
    """Each DIR is a problem folder (has problem.toml) or a bank of them."""
    from runner.format.problem import discover_problems

    folders: list[Path] = []
    for d in dirs:
        if not d.is_dir():
            echo(f"error: {d} is not a directory (give a problem folder or a bank of them)", err=True)
            raise typer.Exit(2)
        folders += [d] if (d / "problem.toml").exists() else discover_problems(d)
    if not folders:
        where = ", ".join(map(str, dirs))
        echo(f"error: no problem folders (with a problem.toml) in {where}", err=True)
        raise typer.Exit(2)
    return folders


def _bank_tracks(bank: Path) -> list[TrackSpec] | None:
    """The bank's tracks.toml, or exit 2 with its format error (every problem depends on it)."""
    from runner.format.problem import ProblemFormatError
    from runner.format.tracks import load_tracks

    try:
        return load_tracks(bank)
    except ProblemFormatError as exc:
        echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _runner() -> JudgeRunner:
    from runner import SandboxUnavailable, get_runner

    try:
        runner: JudgeRunner = get_runner()
        return runner
    except SandboxUnavailable as exc:
        echo(f"error: the sandbox is not available: {exc}", err=True)
        raise typer.Exit(3) from exc


@app.command("validate")
def validate(
    dirs: Annotated[list[Path] | None, typer.Argument(help="problem folders, or bank folders")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable reports")] = False,
    matrix: Annotated[
        bool,
        typer.Option("--matrix", help="print each problem's kill matrix (which case rejects which mutant)"),
    ] = False,
) -> None:
    """Validate problem folders by running them in the sandbox. Exit code 1 if any fails.

    A folder in a bank with a tracks.toml must name one of its tracks and meet the bank's bar
    (runner.format.quality: every section, hints, at least three mutants).
    """
    from app.authoring.validation import format_report, validate_files
    from runner.format.problem import ProblemFormatError, load_problem_dir
    from runner.format.quality import bank_findings, bank_titles

    folders = _folders(dirs or [Path("problems")])
    runner = _runner()
    reports = []
    for folder in folders:
        try:
            problem = load_problem_dir(folder)
            titles = bank_titles(folder)
            report = validate_files(problem, runner, titles)
            if titles is not None:  # a folder of a bank (problems/): the bank's bar too
                report.errors += bank_findings(problem)
        except ProblemFormatError as exc:
            report = format_report(folder.name, exc)
        except OSError as exc:
            report = format_report(folder.name, ProblemFormatError(exc.strerror or str(exc), str(folder)))
        reports.append(report)
        if not as_json:
            echo(report.render(matrix=matrix))
    failed = sum(not r.ok for r in reports)
    if as_json:
        echo(json.dumps([r.to_dict() for r in reports], indent=2))
    echo(f"\n{len(reports) - failed} of {count(len(reports), 'problem')} valid", err=as_json)
    raise typer.Exit(1 if failed else 0)


@app.command("import")
def import_(
    dirs: Annotated[list[Path] | None, typer.Argument(help="problem folders, or bank folders")] = None,
    validate_first: Annotated[
        bool, typer.Option("--validate", help="refuse a problem that does not pass validation")
    ] = False,
    unpublished: Annotated[
        bool, typer.Option("--unpublished", help="new problems start hidden from students")
    ] = False,
) -> None:
    """Import problem folders (idempotent: an unchanged folder creates no new version).

    A new problem is published unless --unpublished; a changed one gets version N+1. A problem
    authored on the site (with owners, or course-only) is never overwritten: its authors own it.
    """
    from app.authoring.validation import validate_files
    from app.kit.db import Database
    from app.kit.runner import expectation_error_types
    from app.kit.settings import get_settings
    from app.problems import repository
    from app.problems.importer import ImportReport, import_problem, not_the_banks, sync_tracks
    from runner.format.problem import ProblemFormatError, load_problem_dir
    from runner.format.quality import bank_titles

    folders = _folders(dirs or [Path("problems")])
    runner = _runner()
    report = ImportReport()
    db = Database(get_settings().database_url)
    try:
        with db.transaction() as session:
            for bank in dict.fromkeys(folder.parent for folder in folders):
                specs = _bank_tracks(bank)
                if specs is not None:
                    sync_tracks(session, specs)
            for folder in folders:
                slug = folder.name
                refusal = not_the_banks(session, slug)
                if refusal is not None:
                    report.errors[slug] = refusal
                    continue
                try:
                    problem = load_problem_dir(folder)
                    if validate_first:
                        checked = validate_files(problem, runner, bank_titles(folder))
                        if not checked.ok:
                            report.errors[slug] = "does not pass validation:\n" + checked.render()
                            continue
                    with session.begin_nested():
                        outcome = import_problem(session, problem, runner)
                        if outcome == "created" and unpublished:
                            row = repository.get_by_slug(session, slug)
                            assert row is not None
                            row.published = False
                except (ProblemFormatError, OSError) as exc:
                    report.errors[slug] = str(exc)
                    continue
                except expectation_error_types() as exc:
                    report.errors[slug] = f"reference solution failed: {exc}"
                    continue
                getattr(report, outcome).append(slug)
    finally:
        db.dispose()
    echo(report.summary())
    raise typer.Exit(0 if report.ok else 1)


def _prepare_target(target: Path, files: dict[str, str], force: bool) -> None:
    """Refuse to mix an export with other files; with --force, remove stale problem files only."""
    from app.authoring.archive import allowed_name

    if target.is_symlink() or (target.exists() and not target.is_dir()):
        echo(f"error: {target} exists and is not a directory", err=True)
        raise typer.Exit(2)
    if not target.exists():
        return
    present: list[str] = []
    for entry in sorted(os.listdir(target)):
        path = target / entry
        if entry == "mutants" and stat.S_ISDIR(os.lstat(path).st_mode):
            present += [f"mutants/{m}" for m in sorted(os.listdir(path)) if m != "__pycache__"]
        elif entry != "__pycache__" and not entry.startswith("."):
            present.append(entry)
    if not present:
        return
    if not force:
        echo(
            f"error: {target} is not empty; pass --force to overwrite its problem files "
            "(files the export does not contain are deleted)",
            err=True,
        )
        raise typer.Exit(2)
    unknown = [rel for rel in present if not allowed_name(rel)]
    if unknown:
        echo(f"error: {target} holds files that are not problem files: {', '.join(unknown)}", err=True)
        raise typer.Exit(2)
    for rel in present:
        path = target / rel
        if rel not in files and (path.is_symlink() or path.is_file()):
            path.unlink()


@app.command("export")
def export(
    slug: Annotated[str, typer.Argument(help="the problem's slug")],
    directory: Annotated[Path, typer.Argument(help="the bank folder: the problem is written to DIR/SLUG")],
    source: Annotated[
        str, typer.Option(help="live: the published version; draft: the unpublished working copy")
    ] = "live",
    force: Annotated[bool, typer.Option("--force", help="overwrite an existing DIR/SLUG")] = False,
) -> None:
    """Write a problem's files from the database to DIR/SLUG, exactly as they were imported or saved."""
    from app.authoring import working_copy
    from app.kit.db import Database
    from app.kit.errors import NotFound
    from app.kit.settings import get_settings
    from runner.format.problem import ProblemFormatError, build_problem, write_problem_dir

    if source not in ("live", "draft"):
        echo("error: --source must be 'live' or 'draft'", err=True)
        raise typer.Exit(2)
    which: Literal["live", "draft"] = "live" if source == "live" else "draft"
    db = Database(get_settings().database_url)
    try:
        with db.transaction() as session:
            files = working_copy.export_files_as_operator(session, slug, which)
    except NotFound as exc:
        echo(f"error: {exc.detail}", err=True)
        raise typer.Exit(1) from None
    finally:
        db.dispose()
    target = directory / slug
    _prepare_target(target, files, force)
    try:
        write_problem_dir(build_problem(slug, files), target)
    except ProblemFormatError as exc:
        echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    echo(f"exported {slug} ({source}, {len(files)} files) to {target}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
