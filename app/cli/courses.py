"""``torchdrill course export ID --format csv|xlsx``: download a gradebook through the REST API.

Uses the server and token saved by ``torchdrill login`` (the token's owner must instruct the
course), so the file is exactly what ``GET /api/v1/courses/{id}/gradebook.csv`` serves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from torchdrill.api import client_from_config
from torchdrill.commands import command, fail
from torchdrill.output import echo

app = typer.Typer(help="Courses you teach: export the gradebook.", no_args_is_help=True)

FORMATS = ("csv", "xlsx")


@app.command("export")
@command
def export(
    course_id: Annotated[int, typer.Argument(help="the course's id (shown on the course page)", min=1)],
    fmt: Annotated[str, typer.Option("--format", help="csv (UTF-8 with BOM) or xlsx")] = "csv",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="file to write; '-' for stdout (csv only)")
    ] = None,
) -> None:
    """Download the course's gradebook (name, email, id, section, one column per assignment, total)."""
    if fmt not in FORMATS:
        raise fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    response = client_from_config().request("GET", f"/api/v1/courses/{course_id}/gradebook.{fmt}")
    if output is not None and str(output) == "-":
        if fmt != "csv":
            raise fail("only csv can be written to stdout")
        echo(response.content.decode("utf-8-sig"), nl=False)
        return
    target = output or Path(f"course-{course_id}-gradebook.{fmt}")
    target.write_bytes(response.content)
    echo(f"wrote {target} ({len(response.content)} bytes)")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="course")
