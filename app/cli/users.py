"""``torchdrill users``: accounts, Premium and two-factor resets on the platform's database (operators)."""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlalchemy.orm import Session
from torchdrill.output import echo

from app.accounts import premium, service, two_factor
from app.accounts.models import ROLES
from app.kit.db import Database, utcnow
from app.kit.errors import AppError, FormErrors
from app.kit.mail import Mailer
from app.kit.settings import Settings

app = typer.Typer(
    help="User accounts and Premium (acts on TORCHDRILL_DATABASE_URL directly).", no_args_is_help=True
)


def fail(message: str, code: int = 1) -> typer.Exit:
    echo(f"error: {message}", err=True)
    return typer.Exit(code)


@contextmanager
def database_session() -> Iterator[Session]:
    """One transaction on the configured database; clear errors instead of tracebacks."""
    try:
        settings = Settings()
    except Exception as exc:  # pydantic's ValidationError: bad TORCHDRILL_* values
        raise fail(f"invalid settings: {exc}") from None
    db = Database(settings.database_url)
    try:
        with db.transaction() as session:
            yield session
    except AppError as exc:
        detail = (
            "; ".join(f"{k}: {v}" for k, v in exc.errors.items())
            if isinstance(exc, FormErrors)
            else exc.detail
        )
        raise fail(detail) from None
    except (OperationalError, ProgrammingError) as exc:
        raise fail(
            f"cannot use the database at {db.engine.url.render_as_string(hide_password=True)}: "
            f"{str(exc.orig).strip().splitlines()[0]} (run `alembic upgrade head` first?)"
        ) from None
    finally:
        db.dispose()


@app.command("create")
def create(
    email: Annotated[str, typer.Argument(help="the account's email")],
    password: Annotated[str, typer.Option("--password", help="at least 8 characters")],
    role: Annotated[str, typer.Option("--role", help="student, instructor or admin")] = "student",
    premium_days: Annotated[
        int | None, typer.Option("--premium-days", help="grant N days of Premium")
    ] = None,
) -> None:
    """Create an account (optionally with a role and some days of Premium)."""
    if role not in ROLES:
        raise fail(f"--role must be one of {', '.join(ROLES)}, not {role!r}", 2)
    if premium_days is not None and not 1 <= premium_days <= premium.MAX_PREMIUM_DAYS:
        raise fail(f"--premium-days must be between 1 and {premium.MAX_PREMIUM_DAYS}", 2)
    with database_session() as session:
        user = service.sign_up(session, email, password, role=role)
        message = f"created {user.email} ({user.role}, id {user.id})"
        if premium_days is not None:
            grant = premium.grant_premium(session, user, premium_days, utcnow())
            message += f", Premium until {grant.expires_at:%Y-%m-%d %H:%M} UTC"
    echo(message)


@app.command("grant-premium")
def grant_premium(
    email: Annotated[str, typer.Argument(help="the account's email")],
    days: Annotated[int, typer.Option("--days", help="days of Premium to add")],
) -> None:
    """Add N days of Premium (after any Premium the user already has)."""
    with database_session() as session:
        user = service.get_user_by_email(session, email)
        grant = premium.grant_premium(session, user, days, utcnow())
        until = grant.expires_at
    echo(f"{user.email} has Premium until {until:%Y-%m-%d %H:%M} UTC")


@app.command("revoke-premium")
def revoke_premium(email: Annotated[str, typer.Argument(help="the account's email")]) -> None:
    """End the user's Premium now (past submissions stay visible)."""
    with database_session() as session:
        user = service.get_user_by_email(session, email)
        count = premium.revoke_premium(session, user, utcnow())
    if count == 0:
        echo(f"{user.email} had no active Premium grant")
    else:
        echo(f"revoked Premium of {user.email}")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="users")


@app.command("reset-2fa")
def reset_two_factor(email: Annotated[str, typer.Argument(help="the account's email")]) -> None:
    """Turn off two-factor sign-in for someone who lost their phone and recovery codes (logged)."""
    with database_session() as session:
        user = service.get_user_by_email(session, email)
        if not user.two_factor_on and user.totp_secret is None:
            raise fail(f"{user.email} does not use two-factor sign-in")
        two_factor.reset(session, user, by=f"{getpass.getuser()} with `torchdrill users reset-2fa`")
        address = user.email
    # After the commit, and in this process (a background thread would die with the command).
    Mailer(Settings()).send(address, two_factor.NOTICE_SUBJECT, two_factor.notice("reset"))
    echo(f"two-factor sign-in of {address} was reset: their password alone signs in now")
