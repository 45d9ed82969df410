"""The API client commands: ``torchdrill login``, ``problems`` (list), ``pull``, ``submit`` and ``run``
(your own input).

The server and token live in a JSON config file readable only by its owner:
``$TORCHDRILL_CONFIG``, else ``$XDG_CONFIG_HOME/torchdrill/config.json``, else
``~/.config/torchdrill/config.json``.
"""

from __future__ import annotations

import difflib
import json
import os
import socket
import sys
import time
import uuid
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import httpx
import typer

from app.cli.output import echo, terminal_safe
from runner.format.inputs import InputError, read_arguments
from runner.verdict import Verdict

EXIT_NOT_ACCEPTED = 1
EXIT_ERROR = 2
POLL_WAIT_S = 5
DEFAULT_TOKEN_DAYS = 90  # `torchdrill login`'s new token expires after this many days (--expires-in-days)


def config_path() -> Path:
    explicit = os.environ.get("TORCHDRILL_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "torchdrill" / "config.json"


def fail(message: str, code: int = EXIT_ERROR) -> typer.Exit:
    echo(f"error: {message}", err=True)
    return typer.Exit(code)


def save_config(data: dict[str, str]) -> Path:
    """Write the config with 0600 permissions (the token is a password)."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=2)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return path


def load_config() -> dict[str, str]:
    path = config_path()
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise fail("not logged in: run `torchdrill login --server URL` first") from None
    except (OSError, ValueError) as exc:
        raise fail(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not data.get("server") or not data.get("token"):
        raise fail(f"{path} has no server or token: run `torchdrill login --server URL` again")
    return {k: str(v) for k, v in data.items()}


class Api:
    """A thin httpx client that turns the API's error shape into clear messages."""

    def __init__(
        self, server: str, token: str | None = None, transport: httpx.BaseTransport | None = None
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.server = server.rstrip("/")
        self.http = httpx.Client(base_url=self.server, headers=headers, timeout=60.0, transport=transport)

    def request(
        self, method: str, url: str, *, passing: tuple[str, ...] = (), **kwargs: Any
    ) -> httpx.Response:
        """The response; an error answer fails the command, unless its code is in ``passing``."""
        try:
            response = self.http.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            raise fail(f"cannot reach {self.server}: {exc}") from None
        if response.status_code >= 400:
            if passing and error_code(response) in passing:
                return response
            try:
                body = response.json()
                message = (
                    f"{body.get('detail') or body.get('error')} ({response.status_code} {body.get('error')})"
                )
            except ValueError:
                message = f"the server answered {response.status_code}"
            raise fail(message)
        return response


def error_code(response: httpx.Response) -> str | None:
    """The ``error`` of an error answer, if it has the API's error shape."""
    try:
        body = response.json()
    except ValueError:
        return None
    return str(body.get("error")) if isinstance(body, dict) and body.get("error") else None


def client_from_config() -> Api:
    config = load_config()
    return Api(config["server"], config["token"])


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
    me = Api(server, token).request("GET", "/api/v1/auth/me").json()
    path = save_config({"server": server.rstrip("/"), "token": token, "email": me["email"]})
    premium = " (Premium)" if me.get("premium") else ""
    echo(f"logged in to {server} as {me['email']}{premium}; token saved in {path}")


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


def _status_line(view: dict[str, Any], started: float) -> str:
    return f"#{view['id']} {view['status']}… {time.monotonic() - started:.1f}s"


def _print_result(view: dict[str, Any]) -> None:
    known = Verdict.parse(view.get("verdict"))
    # the server's words: "Matches the reference" / "Differs from the reference" for run and custom
    verdict = str(view.get("verdict_label") or (known.label if known else view.get("verdict") or ""))
    echo(f"#{view['id']} {view['mode']}: {verdict.upper()}  {view.get('passed')}/{view.get('total')} passed")
    if view.get("message"):
        echo(view["message"])
    tests = view.get("tests") or []
    if tests:
        width = max(len(t.get("label") or t["name"]) for t in tests)  # "hidden 3 · batch of one"
        echo(f"{'case':<{width}}  {'status':<8} {'time':>8}  message")
        for t in tests:
            message = (t.get("message") or "").splitlines()[0] if t.get("message") else ""
            if t.get("public") and t.get("status") == "failed" and t.get("expected") is not None:
                message = message or f"expected {t['expected']}, got {t.get('actual')}"
            name = t.get("label") or t["name"]
            line = f"{name:<{width}}  {t['status']:<8} {t.get('time_ms', 0):>6.1f}ms  {message}"
            echo(line)
            given = (t.get("failure") or {}).get("input")
            if isinstance(given, str) and given:  # the failing input, as `torchdrill run --input` takes it
                echo(
                    f"  to run this input yourself, save it to a file for `torchdrill run --input`:\n{given}"
                )


def _read(file: Path) -> str:
    try:
        return file.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"cannot read {file}: {exc}") from None


def _judge(body: dict[str, Any]) -> dict[str, Any]:
    """POST a submission and follow it to its verdict, showing the status live."""
    api = client_from_config()
    started = time.monotonic()
    live = sys.stdout.isatty()
    view: dict[str, Any] = api.request(
        "POST",
        "/api/v1/submissions?wait=true&timeout=2",
        json=body,
        headers={"Idempotency-Key": uuid.uuid4().hex},  # a retried request never judges twice
    ).json()
    while view["status"] != "finished":
        line = _status_line(view, started)
        if live:  # the CR is the CLI's own (it redraws the line); the server's text is made safe
            typer.echo("\r" + terminal_safe(line), nl=False)
        else:
            echo(line)
        view = api.request("GET", f"/api/v1/submissions/{view['id']}?wait=true&timeout={POLL_WAIT_S}").json()
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
    try:
        arguments = read_arguments(_read(input_file))
    except InputError as exc:  # checked here too, so a typo is named before anything is sent
        raise fail(f"{input_file}: {exc}") from None
    view = _judge({"problem": slug, "code": code, "mode": "custom", "input": arguments})
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


def register(root: typer.Typer) -> None:
    root.command("login")(login)
    root.command("tracks")(tracks)
    root.command("pull")(pull)
    root.command("submit")(submit)
    root.command("run")(run_custom)
