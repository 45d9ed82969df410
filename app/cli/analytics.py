"""``torchdrill analytics check|rebuild``: course analytics against the submissions table.

The analytics pages read state kept with each verdict (``app.analytics``). ``check`` says whether it
agrees with what the submissions table implies (exit 1 if not); ``rebuild`` recomputes it, in one
transaction. A student whose window changed (an extension, new dates) shows as a difference until
the assignment's analytics are next read, which recomputes them.
"""

from __future__ import annotations

import typer
from torchdrill.output import echo

from app.analytics import state
from app.kit.db import Database
from app.kit.settings import Settings

app = typer.Typer(help="Course analytics state (acts on TORCHDRILL_DATABASE_URL).", no_args_is_help=True)


@app.command("check")
def check() -> None:
    """Compare the analytics state with the submissions table; exit 1 if they differ."""
    db = Database(Settings().database_url)
    with db.transaction() as session:
        result = state.compare(session)
    echo(f"checked: {result.rows} rows; differences: {result.differences}")
    if not result.in_step:
        raise typer.Exit(1)


@app.command("rebuild")
def rebuild() -> None:
    """Recompute the analytics state from the submissions table."""
    db = Database(Settings().database_url)
    with db.transaction() as session:
        before = state.rebuild(session)
    echo(f"rebuilt: {before.rows} rows; differences before: {before.differences}")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="analytics")
