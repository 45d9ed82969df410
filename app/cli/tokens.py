"""``torchdrill tokens create EMAIL``: mint a personal access token for an account (operators)."""

from __future__ import annotations

from typing import Annotated

import typer

from app.accounts import service, tokens
from app.cli.output import echo
from app.cli.users import database_session
from app.kit.db import utcnow

app = typer.Typer(help="API tokens (acts on TORCHDRILL_DATABASE_URL directly).", no_args_is_help=True)


@app.command("create")
def create(
    email: Annotated[str, typer.Argument(help="the account's email")],
    name: Annotated[str, typer.Option("--name", help="a label to recognise the token by")] = "cli",
) -> None:
    """Create a token and print it (only this once: the database keeps a hash)."""
    with database_session() as session:
        user = service.get_user_by_email(session, email)
        _token, plain = tokens.create_token(session, user, name, utcnow())
    echo(plain)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="tokens")
