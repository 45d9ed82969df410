"""``torchdrill report`` (a failed case of your submission: "I think this test is wrong") and
``torchdrill reports`` (yours, or a problem's for its owners and instructors): thin over
``/api/v1``'s reports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from torchdrill.api import client_from_config
from torchdrill.output import echo

STATUS_WORDS = {"open": "open", "not_a_bug": "not a bug", "fixed": "fixed"}


def _print(report: dict[str, Any]) -> None:
    echo(f"report #{report['id']} on {report['problem']}, submission #{report['submission_id']}, "
         f"test case {report['case']!r}: {STATUS_WORDS.get(report['status'], report['status'])}")  # fmt: skip
    if report.get("reply"):
        echo(f"  answer: {report['reply']}")
    outcome = report.get("outcome")
    if outcome:
        result = outcome.get("verdict_label") or outcome["status"]
        passed = f" ({outcome['passed']}/{outcome['total']})" if outcome.get("total") is not None else ""
        echo(f"  re-judged on v{outcome['version']}: {result}{passed}")


def report(
    submission_id: Annotated[int, typer.Argument(help="your submission's id")],
    case: Annotated[str, typer.Option("--case", help="the failed test case's name")],
    note: Annotated[str, typer.Option("--note", help="why you think the test is wrong")],
) -> None:
    """Report a failed test case of your submission as wrong, with a note for the problem's authors."""
    api = client_from_config()
    body = api.request(
        "POST", f"/api/v1/submissions/{submission_id}/reports", json={"case": case, "note": note}
    ).json()
    _print(body)


def reports(
    problem: Annotated[
        str | None, typer.Option("--problem", help="a problem's slug (owners, instructors)")
    ] = None,
    status: Annotated[str | None, typer.Option("--status", help="open, not_a_bug or fixed")] = None,
) -> None:
    """List your reports, or (with --problem) the reports you answer on a problem."""
    api = client_from_config()
    params = {k: v for k, v in (("problem", problem), ("status", status)) if v}
    items = api.request("GET", "/api/v1/reports", params=params).json()["items"]
    if not items:
        echo("no reports")
    for item in items:
        _print(item)


def register(root: typer.Typer, command: Callable[[Callable[..., None]], Callable[..., None]]) -> None:
    """``report`` and ``reports`` on ``root``, each wrapped by ``command`` (errors printed, exit codes)."""
    root.command("report")(command(report))
    root.command("reports")(command(reports))
