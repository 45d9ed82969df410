"""``python -m runner`` (and ``torchdrill judge`` / ``torchdrill problems validate``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from runner import jobs
from runner.format.problem import ProblemFormatError, discover_problems, load_problem_dir

if TYPE_CHECKING:
    from runner.engine import Runner

app = typer.Typer(help="Torchdrill's sandboxed judge.", no_args_is_help=True, add_completion=False)

STATUS_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "not_run": "-"}


def _runner() -> Runner:
    from runner.engine import Runner
    from runner.sandbox.bwrap import SandboxUnavailable

    try:
        return Runner()
    except SandboxUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(3) from exc


def _read_solution(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        typer.echo(f"error: cannot read {path}: {exc.strerror}", err=True)
        raise typer.Exit(2) from exc
    return data.decode("utf-8", errors="surrogateescape")


def _table(result: jobs.JudgeResult) -> str:
    rows = [f"{'case':<28} {'status':<7} {'time':>9}  message"]
    for case in result.cases:
        name = case.name + ("" if case.public else " (hidden)")
        mark = STATUS_MARK.get(case.status, case.status)
        rows.append(f"{name:<28} {mark:<7} {case.time_ms:>7.1f}ms  {case.message}")
        if case.public and case.status != "passed" and case.expected is not None:
            rows.append(f"{'':<28}   expected: {case.expected}")
            rows.append(f"{'':<28}   actual:   {case.actual}")
    rows.append("")
    rows.append(
        f"verdict: {result.verdict}  ({result.passed}/{result.total} passed, {result.time_ms:.0f} ms)"
    )
    if result.message:
        rows.append(result.message)
    return "\n".join(rows)


@app.command()
def judge(
    problem_dir: Annotated[Path, typer.Argument(help="problems/<slug>")],
    solution: Annotated[Path, typer.Argument(help="the solution.py to judge")],
    run: Annotated[bool, typer.Option("--run", help="only the public examples")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Judge SOLUTION against PROBLEM_DIR. Exit code 0 only when accepted."""
    try:
        problem = load_problem_dir(problem_dir)
    except (ProblemFormatError, OSError) as exc:
        typer.echo(f"error: {problem_dir}: {exc}", err=True)
        raise typer.Exit(2) from exc
    code = _read_solution(solution)
    runner = _runner()
    from runner.engine import ExpectationError

    try:
        expectations = runner.compute_expectations(problem)
    except ExpectationError as exc:
        typer.echo(f"error: the problem itself is broken: {exc}", err=True)
        raise typer.Exit(2) from exc
    result = runner.judge(runner.job_for(problem, expectations, code, "run" if run else "submit"))
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    else:
        typer.echo(_table(result))
    raise typer.Exit(0 if result.accepted else 1)


@app.command()
def validate(
    dirs: Annotated[list[Path] | None, typer.Argument(help="problem folders, or a bank folder")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Validate problems by running them. Exit code 1 if any fails."""
    from runner.format.quality import bank_findings, bank_titles
    from runner.format.validate import validate_problem

    folders: list[Path] = []
    for d in dirs or [Path("problems")]:
        folders += [d] if (d / "problem.toml").exists() else discover_problems(d)
    if not folders:
        typer.echo("error: no problem folders found", err=True)
        raise typer.Exit(2)
    runner = _runner()
    failed = 0
    reports = []
    for folder in folders:
        try:
            problem = load_problem_dir(folder)
            titles = bank_titles(folder)
        except (ProblemFormatError, OSError) as exc:
            failed += 1
            typer.echo(f"FAIL {folder.name}\n  error: {exc}")
            continue
        report = validate_problem(problem, runner, titles)
        if titles is not None:  # a folder of a bank: the bank's bar too
            report.errors += bank_findings(problem)
        failed += not report.ok
        reports.append(report.to_dict())
        if not as_json:
            typer.echo(report.render())
    if as_json:
        typer.echo(json.dumps(reports, indent=2))
    typer.echo(f"\n{len(folders) - failed} of {len(folders)} problem(s) valid", err=as_json)
    raise typer.Exit(1 if failed else 0)


@app.command()
def serve(
    socket: Annotated[str, typer.Option(help="unix socket path")] = "/run/torchdrill/runner.sock",
) -> None:
    """Run the runner as its own service process."""
    from runner.transport.service import serve as serve_forever

    serve_forever(socket, _runner())


def main() -> None:
    app()


if __name__ == "__main__":
    main()
