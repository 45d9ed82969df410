"""``torchdrill lti``: register LMS platforms, list and remove them, send waiting grades, rotate the
tool's key — on ``TORCHDRILL_DATABASE_URL`` directly (operators)."""

from __future__ import annotations

from typing import Annotated

import typer
from torchdrill.output import echo

from app.cli.users import database_session, fail
from app.kit.db import Database
from app.kit.settings import Settings
from app.lti import keys, line_items, passback, platforms
from app.lti.models import LtiLineItem

app = typer.Typer(help="LTI 1.3: the LMS platforms this site is a tool of.", no_args_is_help=True)


def _settings() -> Settings:
    try:
        return Settings()
    except Exception as exc:
        raise fail(f"invalid settings: {exc}") from None


@app.command("add-platform")
def add_platform(
    issuer: Annotated[
        str, typer.Option("--issuer", help="the platform's issuer, e.g. https://canvas.instructure.com")
    ],
    client_id: Annotated[str, typer.Option("--client-id", help="the client id the LMS gave this tool")],
    deployment_id: Annotated[str, typer.Option("--deployment-id", help="the deployment id")],
    auth_url: Annotated[str, typer.Option("--auth-url", help="the platform's OIDC authorization URL")],
    token_url: Annotated[str, typer.Option("--token-url", help="the platform's OAuth2 token URL")],
    jwks_url: Annotated[str, typer.Option("--jwks-url", help="the platform's public keys (JWKS) URL")],
    name: Annotated[str, typer.Option("--name", help="a name to show")] = "",
    lms_url: Annotated[
        str,
        typer.Option("--lms-url", help="where the LMS shows its pages, if not the issuer's (may frame us)"),
    ] = "",
) -> None:
    """Register a platform (or add a deployment to one already registered)."""
    settings = _settings()
    data = platforms.PlatformInput(
        issuer, client_id, deployment_id, auth_url, token_url, jwks_url, name, lms_url
    )
    with database_session() as session:
        platform, deployment = platforms.add(session, settings, data)
        echo(
            f"platform {platform.id}: {platform.issuer} (client {platform.client_id}), "
            f"deployment {deployment.deployment_id}"
        )


@app.command("list")
def list_platforms() -> None:
    """Registered platforms and their deployments."""
    with database_session() as session:
        rows = platforms.listing(session)
        if not rows:
            echo("no LTI platform registered")
        for row in rows:
            p = row.platform
            echo(f"{p.id}\t{p.issuer}\tclient {p.client_id}\tdeployments {', '.join(row.deployments) or '-'}")
            echo(f"\tauth {p.auth_url}\n\ttoken {p.token_url}\n\tjwks {p.jwks_url}")


@app.command("remove")
def remove(
    platform_id: Annotated[int, typer.Argument(help="the platform's id (torchdrill lti list)", min=1)],
) -> None:
    """Forget a platform: its launches and grade passback stop (accounts and courses stay)."""
    with database_session() as session:
        platform = platforms.remove(session, platform_id)
        echo(f"removed platform {platform_id} ({platform.issuer})")


@app.command("sync")
def sync(
    all_scores: Annotated[
        bool, typer.Option("--all", help="mark every linked student's score due first")
    ] = False,
) -> None:
    """Send the grades waiting for the LMS (those whose back-off has passed) once."""
    settings = _settings()
    if all_scores:
        with database_session() as session:
            marked = sum(
                passback.mark_assignment(session, a)
                for a in {i.assignment_id for i in session.query(LtiLineItem)}
            )
            echo(f"marked {marked} score(s) due")
    db = Database(settings.database_url)
    try:
        line_items.create_due(db, settings.secret_key)  # columns a launch could not make
        sent, failed = passback.send_due(db, settings.secret_key)
    finally:
        db.dispose()
    echo(f"sent {sent} score(s); {failed} gave up (resend them from the course's LMS page)")


@app.command("rotate-key")
def rotate_key(
    grace_days: Annotated[
        int, typer.Option("--grace-days", min=0, max=365, help="keep the old key published")
    ] = 7,
) -> None:
    """A new signing key; the previous one stays published at /lti/jwks for the grace period."""
    from datetime import timedelta

    settings = _settings()
    with database_session() as session:
        row = keys.rotate(session, settings.secret_key, timedelta(days=grace_days))
        echo(f"new signing key {row.kid}")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="lti")
