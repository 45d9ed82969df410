"""``torchdrill problems``: list (through the API), validate, import and export problem folders."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from runner import cli as runner_cli

app = typer.Typer(help="Problems: list (API), validate, import, export.", invoke_without_command=True)
app.command("validate", help="Validate problem folders by running them in the sandbox.")(runner_cli.validate)


@app.callback()
def problems(ctx: typer.Context) -> None:
    """Without a sub-command: list the server's problems (after `torchdrill login`)."""
    if ctx.invoked_subcommand is not None:
        return
    try:
        from app.cli.client import list_problems
    except ModuleNotFoundError:
        typer.echo("error: the API client is not available in this installation", err=True)
        raise typer.Exit(2) from None
    list_problems()


@app.command("import")
def import_(
    bank: Annotated[Path, typer.Argument(help="a problem folder or a bank of them")] = Path("problems"),
) -> None:
    """Import problem folders into the database (idempotent; a changed problem gets a new version)."""
    from app.problems.importer import main as importer_main

    raise typer.Exit(importer_main([str(bank)]))


def main() -> None:
    app()


if __name__ == "__main__":
    sys.exit(main())
