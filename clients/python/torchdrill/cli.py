"""``torchdrill`` as the light client installs it: the learner commands, and ``version``.

The server's own ``torchdrill`` (``app/cli/main.py``) registers the same commands next to its
operator commands.
"""

from __future__ import annotations

import typer

from torchdrill import version as versions
from torchdrill.api import client_from_config
from torchdrill.commands import command, list_problems, register
from torchdrill.output import echo

app = typer.Typer(
    help="Torchdrill: practise PyTorch against a Torchdrill server.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
register(app)


@app.command("problems")
@command
def problems() -> None:
    """The server's problems: ✓ solved, ★ Premium, 🔒 locked."""
    list_problems()


@app.command("version")
@command
def version() -> None:
    """This client's version and the server's API revision."""
    echo(versions.describe())
    server = client_from_config().check_version()
    echo(f"server: API {server.get('api')} revision {server.get('revision')}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
