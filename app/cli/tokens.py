"""``torchdrill tokens create EMAIL``: mint a personal access token for an account (operators)."""

from __future__ import annotations

from typing import Annotated

import typer
from torchdrill.output import echo

from app.accounts import service, tokens
from app.cli.users import database_session
from app.kit.db import utcnow

app = typer.Typer(help="API tokens (acts on TORCHDRILL_DATABASE_URL directly).", no_args_is_help=True)


@app.command("create")
def create(
    email: Annotated[str, typer.Argument(help="the account's email")],
    name: Annotated[str, typer.Option("--name", help="a label to recognise the token by")] = "cli",
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope", help="read, submit or teach; repeat for several (default: all the role can use)"
        ),
    ] = None,
    expires_in_days: Annotated[
        str,
        typer.Option(
            "--expires-in-days", help=f"days (1-{tokens.MAX_DAYS}) or 'never' (default {tokens.DEFAULT_DAYS})"
        ),
    ] = str(tokens.DEFAULT_DAYS),
) -> None:
    """Create a token and print it (only this once: the database keeps a hash)."""
    now = utcnow()
    with database_session() as session:
        user = service.get_user_by_email(session, email)
        expires_at = tokens.expiry_after(tokens.parse_days(expires_in_days), now)  # 422s become errors
        _token, plain = tokens.create_token(session, user, name, now, scopes=scope, expires_at=expires_at)
    echo(plain)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="tokens")
