"""``torchdrill``: one entry point, sub-commands registered from the modules that own them.

- ``torchdrill judge`` and ``torchdrill problems validate`` come from the runner's CLI;
- ``torchdrill problems import|export`` (authoring), ``users`` and ``tokens`` (accounts)
  act on the platform's database directly, for operators;
- ``submissions rejudge`` judges stored submissions again; ``stats check|rebuild`` and
  ``analytics check|rebuild`` (operators);
- ``login``, ``problems`` (list), ``tracks``, ``pull``, ``submit``, ``run``, ``hints``, ``report``
  and ``reports`` talk to a server's REST API: they are the light client's commands
  (``clients/python``, package ``torchdrill``), registered here as they are in its own
  ``torchdrill``: one implementation.
"""

from __future__ import annotations

import importlib

import typer
from torchdrill import commands as learner_commands

from app.cli import problems
from runner import cli as runner_cli

app = typer.Typer(
    help="Torchdrill: a practice platform for PyTorch.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("judge", help="Judge a solution.py against a problem folder in the sandbox.")(runner_cli.judge)
app.add_typer(problems.app, name="problems")
learner_commands.register(app)

# Optional command groups live in their own modules; each registers itself on ``app``.
for module in (
    "app.cli.users",
    "app.cli.tokens",
    "app.cli.submissions",
    "app.cli.stats",
    "app.cli.analytics",
    "app.cli.courses",
    "app.cli.lti",
):
    try:
        importlib.import_module(module).register(app)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise


def main() -> None:
    app()


if __name__ == "__main__":
    main()
