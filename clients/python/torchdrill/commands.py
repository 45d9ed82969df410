"""The learner commands: ``torchdrill login``, ``problems`` (list), ``tracks``, ``pull``, ``submit``,
``run`` (your own input), ``hints`` and ``solutions``.

The same functions are the light client's CLI (:mod:`torchdrill.cli`) and, registered by
:func:`register`, the server's ``torchdrill`` (``app/cli/main.py``): one implementation. They raise
:class:`~torchdrill.errors.ClientError`; :func:`command` prints it and exits with its code.
"""

from __future__ import annotations

import difflib
import functools
import socket
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar
from urllib.parse import quote

import typer

from torchdrill import reports, solutions
from torchdrill.api import Api, client_from_config, error_code
from torchdrill.config import save_config
from torchdrill.errors import EXIT_ERROR, EXIT_NOT_ACCEPTED, ClientError
from torchdrill.output import echo, terminal_safe
from torchdrill.render import result_lines, status_line

POLL_WAIT_S = 5
DEFAULT_TOKEN_DAYS = 90  # `torchdrill login`'s new token expires after this many days (--expires-in-days)

P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str, code: int = EXIT_ERROR) -> typer.Exit:
    echo(f"error: {message}", err=True)
    return typer.Exit(code)


def command(func: Callable[P, R]) -> Callable[P, R]:
    """A CLI command: a :class:`ClientError` is printed (``error: ...``) and ends it with its code."""

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ClientError as exc:
            raise fail(exc.message, exc.code) from None

    return run


def login(
    server: Annotated[
        str, typer.Option("--server", help="the Torchdrill server, e.g. http://127.0.0.1:8000")
    ],
    email: Annotated[str | None, typer.Option("--email", help="asked for when missing")] = None,
    password: Annotated[
        str | None, typer.Option("--password", help="asked for (hidden) when missing")
    ] = None,
    token: Annotated[str | None, typer.Option("--token", help="use an existing API token instead")] = None,
    expires_in_days: Annotated[
        str,
        typer.Option(
            "--expires-in-days",
            help=f"the new token's life: days (1-3650) or 'never' (default {DEFAULT_TOKEN_DAYS})",
        ),
    ] = str(DEFAULT_TOKEN_DAYS),
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope", help="read, submit or teach; repeat for several (default: all your role can use)"
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="the new token's name (default: cli@<host>)")
    ] = None,
    otp: Annotated[
        str | None,
        typer.Option(
            "--otp", help="with two-factor sign-in: the app's code or a recovery code (else asked for)"
        ),
    ] = None,
) -> None:
    """Log in to a server and remember a new token (expiring; 90 days by default) in the config file
    (0600)."""
    if not server.startswith(("http://", "https://")):
        raise fail("--server must be an http:// or https:// URL")
    expiry = expires_in_days.strip().lower()
    if expiry != "never" and not (expiry.isdigit() and 1 <= int(expiry) <= 3650):
        raise fail("--expires-in-days must be a number of days from 1 to 3650, or 'never'")
    if token is None:
        email = email or typer.prompt("Email")
        password = password or typer.prompt("Password", hide_input=True)
        form = {
            "username": email,
            "password": password,
            "name": name or f"cli@{socket.gethostname()}"[:100],
            "expires_in_days": expiry,
            "scope": " ".join(scope or []),
        } | ({"otp": otp} if otp else {})
        api = Api(server)
        response = api.request("POST", "/api/v1/auth/token", data=form, passing=("otp_required",))
        if error_code(response) == "otp_required":  # two-factor sign-in is on: ask, once
            form["otp"] = typer.prompt("Two-factor code (or a recovery code)")
            response = api.request("POST", "/api/v1/auth/token", data=form)
        body = response.json()
        token = str(body["access_token"])
        expires = f"expires {body['expires_at'][:10]}" if body.get("expires_at") else "never expires"
        echo(f"new token {body.get('name', '')} ({body.get('scope', '')}; {expires})")
    echo(remember(server, token))


def remember(server: str, token: str) -> str:
    """Check ``token`` on ``server`` and keep both in the config file; the line that says so."""
    me = Api(server, token).request("GET", "/api/v1/auth/me").json()
    path = save_config({"server": server.rstrip("/"), "token": token, "email": me["email"]})
    premium = " (Premium)" if me.get("premium") else ""
    return f"logged in to {server} as {me['email']}{premium}; token saved in {path}"


def list_problems() -> None:
    """Print the server's problems as a table (all pages)."""
    api = client_from_config()
    url: str | None = "/api/v1/problems?limit=100"
    rows: list[dict[str, Any]] = []
    while url:
        body = api.request("GET", url).json()
        rows.extend(body["items"])
        url = body.get("next")
    if not rows:
        echo("no problems")
        return
    width = max(len(r["slug"]) for r in rows)
    for r in rows:
        marks = ("✓ " if r.get("solved") else "  ") + (
            "🔒" if r.get("locked") else ("★ " if r["premium"] else "  ")
        )
        echo(f"{marks} {r['slug']:<{width}}  {r['difficulty']:<6}  {r['category']}: {r['title']}")


def tracks(
    slug: Annotated[str | None, typer.Argument(help="a track's slug: list its problems")] = None,
) -> None:
    """The learning tracks with your progress; with SLUG, that track's problems in order."""
    api = client_from_config()
    if slug is None:
        for t in api.request("GET", "/api/v1/tracks").json()["items"]:
            progress = t.get("progress") or {}
            done = f"{progress.get('solved', 0)}/{t['problem_count']} solved"
            following = f"  next: {progress['next_problem']}" if progress.get("next_problem") else ""
            echo(f"{t['position']:>2}. {t['slug']:<18} {t['title']:<28} {done}{following}")
        return
    track = api.request("GET", f"/api/v1/tracks/{quote(slug, safe='')}").json()
    echo(f"{track['title']} — {track['description']}")
    marks = {"solved": "✓ ", "attempted": "… "}
    for i, p in enumerate(track["problems"], 1):
        lock = "🔒" if p["locked"] else ("★ " if p["premium"] else "  ")
        mark = marks.get(p["mark"] or "", "  ")
        echo(f"{mark}{lock} {i:>2}. {p['slug']:<28} {p['difficulty']:<6} {p['title']}")


def pull(
    slug: Annotated[str, typer.Argument(help="the problem's slug")],
    output: Annotated[Path, typer.Option("--output", "-o", help="where to write the starter code")] = Path(
        "solution.py"
    ),
    force: Annotated[bool, typer.Option("--force", help="overwrite an existing file")] = False,
) -> None:
    """Write the problem's starter code to solution.py."""
    problem = client_from_config().request("GET", f"/api/v1/problems/{quote(slug, safe='')}").json()
    if problem.get("starter_code") is None:
        raise fail(f"{slug} is a Premium problem: redeem a code on your account page to unlock it", 1)
    if output.exists() and not force:
        raise fail(f"{output} exists; use --force to overwrite it")
    output.write_text(problem["starter_code"])
    echo(f"wrote {output} for {problem['title']} (implement {problem['entry_point']})")


def _print_result(view: dict[str, Any]) -> None:
    for line in result_lines(view):
        echo(line)


def _read(file: Path) -> str:
    try:
        return file.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"cannot read {file}: {exc}") from None


def judge(api: Api, body: dict[str, Any], show: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """POST a submission and follow it to its verdict, calling ``show`` with each unfinished view.

    The terminal redraws a status line with it; a notebook updates a display in place.
    """
    view: dict[str, Any] = api.request(
        "POST",
        "/api/v1/submissions?wait=true&timeout=2",
        json=body,
        headers={"Idempotency-Key": uuid.uuid4().hex},  # a retried request never judges twice
    ).json()
    while view["status"] != "finished":
        show(view)
        view = api.request("GET", f"/api/v1/submissions/{view['id']}?wait=true&timeout={POLL_WAIT_S}").json()
    return view


def _judge(body: dict[str, Any]) -> dict[str, Any]:
    """:func:`judge` with the status live on the terminal."""
    started = time.monotonic()
    live = sys.stdout.isatty()

    def show(view: dict[str, Any]) -> None:
        line = status_line(view, time.monotonic() - started)
        if live:  # the CR is the CLI's own (it redraws the line); the server's text is made safe
            typer.echo("\r" + terminal_safe(line), nl=False)
        else:
            echo(line)

    view = judge(client_from_config(), body, show)
    if live:
        typer.echo("\r" + " " * 40 + "\r", nl=False)
    return view


def submit(
    slug: Annotated[str, typer.Argument(help="the problem's slug")],
    file: Annotated[Path, typer.Argument(help="your solution.py")],
    run: Annotated[bool, typer.Option("--run", help="only the public examples")] = False,
) -> None:
    """Judge FILE; shows the status live, then the cases. Exit code 0 only when accepted."""
    code = _read(file)
    view = _judge({"problem": slug, "code": code, "mode": "run" if run else "submit"})
    _print_result(view)
    if view.get("verdict") != "accepted":
        raise typer.Exit(EXIT_NOT_ACCEPTED)


def run_custom(
    slug: Annotated[str, typer.Argument(help="the problem's slug")],
    file: Annotated[Path, typer.Argument(help="your solution.py")],
    input_file: Annotated[
        Path, typer.Option("--input", help="the arguments by name: JSON or Python literals")
    ],
) -> None:
    """Run FILE on your own input: prints the reference's output, yours, and where they differ.

    Exit code 0 when both outputs match, 1 when they differ (or your code failed), 2 on errors.
    """
    code = _read(file)
    text = _read(input_file)  # the server reads it (JSON or Python literals, as data) and names a typo
    try:
        view = _judge({"problem": slug, "code": code, "mode": "custom", "input_text": text})
    except ClientError as exc:
        if exc.error == "invalid_input":
            raise ClientError(f"{input_file}: {exc.message}") from None
        raise
    _print_result(view)
    for case in view.get("tests") or []:
        reference, yours = case.get("expected"), case.get("actual")
        if reference is not None:
            echo(f"reference output:\n{reference}")
        if yours is not None:
            echo(f"your output:\n{yours}")
        if reference is not None and yours is not None and reference != yours:
            echo("diff (reference -> yours):")
            for line in difflib.unified_diff(
                str(reference).splitlines(), str(yours).splitlines(), "reference", "yours", lineterm=""
            ):
                echo(line)
    if view.get("verdict") != "accepted":
        raise typer.Exit(EXIT_NOT_ACCEPTED)


def hints(
    slug: Annotated[str, typer.Argument(help="the problem's slug")],
    reveal_next: Annotated[bool, typer.Option("--next", help="reveal the next hint")] = False,
) -> None:
    """The hints you have revealed for SLUG; with --next, reveal one more first."""
    api = client_from_config()
    url = f"/api/v1/problems/{quote(slug, safe='')}/hints"
    body = api.request("POST" if reveal_next else "GET", url + ("/next" if reveal_next else "")).json()
    if body.get("locked"):
        raise fail(f"{slug} is a Premium problem: redeem a code on your account page to unlock it", 1)
    total = body.get("total", 0)
    if not total:
        echo(f"{slug} has no hints")
        return
    for i, hint in enumerate(body.get("revealed") or [], 1):
        echo(f"hint {i}/{total}: {hint}")
    remaining = body.get("remaining", 0)
    if remaining:
        echo(f"{remaining} more: torchdrill hints {slug} --next")
    else:
        echo("all hints revealed")


def register(root: typer.Typer) -> None:
    """The learner commands on ``root`` (the light client's app, or the server's ``torchdrill``).

    ``problems`` (the list) is not among them: the server's ``problems`` is a group whose callback
    calls :func:`list_problems`.
    """
    root.command("login")(command(login))
    root.command("tracks")(command(tracks))
    root.command("pull")(command(pull))
    root.command("submit")(command(submit))
    root.command("run")(command(run_custom))
    root.command("hints")(command(hints))
    reports.register(root, command)
    solutions.register(root, command)
