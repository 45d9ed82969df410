"""``torchdrill stats check|rebuild``: the maintained progress state against the submissions table.

Listings (acceptance rates, solved marks, progress) read state maintained as verdicts are
recorded. ``check`` says whether it agrees with what the submissions table implies (exit 1 if
not); ``rebuild`` recomputes it from the submissions table, in one transaction.
"""

from __future__ import annotations

import typer
from torchdrill.output import echo

from app.kit.db import Database
from app.kit.settings import Settings
from app.submissions import progress_rebuild

app = typer.Typer(help="Maintained progress state (acts on TORCHDRILL_DATABASE_URL).", no_args_is_help=True)


def _say(result: progress_rebuild.Comparison, verb: str) -> None:
    echo(
        f"{verb}: {result.learner_rows} learner-problem rows, {result.stats_rows} problem rows; "
        f"differences: {result.learner_differences} learner-problem, {result.stats_differences} problem"
    )


@app.command("check")
def check() -> None:
    """Compare the maintained state with the submissions table; exit 1 if they differ."""
    db = Database(Settings().database_url)
    with db.transaction() as session:
        result = progress_rebuild.compare(session)
    _say(result, "checked")
    if not result.in_step:
        raise typer.Exit(1)


@app.command("rebuild")
def rebuild() -> None:
    """Recompute the maintained state from the submissions table."""
    db = Database(Settings().database_url)
    with db.transaction() as session:
        before = progress_rebuild.rebuild(session)
    _say(before, "rebuilt (before)")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="stats")
