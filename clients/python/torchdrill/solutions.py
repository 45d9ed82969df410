"""``torchdrill solutions SLUG``: the problem's published solutions, for a learner who solved it
(or gave up on the website), thin over ``/api/v1``'s solutions; most votes or newest first, one
approach tag if asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

import typer

from torchdrill.api import client_from_config
from torchdrill.errors import EXIT_NOT_ACCEPTED, ClientError
from torchdrill.output import echo

LOCKED = "solutions_locked"


def _print(solution: dict[str, Any]) -> None:
    votes = solution["votes"]
    tags = f" [{', '.join(solution['tags'])}]" if solution["tags"] else ""
    echo(f"#{solution['id']} {solution['title']} — {votes} vote{'s' if votes != 1 else ''}, "
         f"{solution['author']}{tags}")  # fmt: skip
    for line in solution["write_up"].splitlines():
        echo(f"  {line}")
    echo("")
    for line in solution["code"].splitlines():
        echo(f"    {line}")
    echo("")


def solutions(
    slug: Annotated[str, typer.Argument(help="the problem's slug")],
    sort: Annotated[str, typer.Option("--sort", help="votes (default) or newest")] = "votes",
    tag: Annotated[str | None, typer.Option("--tag", help="only solutions with this approach tag")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=100, help="how many")] = 10,
) -> None:
    """The published solutions of SLUG (after you solved it, or gave up on the website)."""
    if sort not in ("votes", "newest"):
        raise ClientError("--sort is votes or newest")
    api = client_from_config()
    params: dict[str, Any] = {"sort": sort, "limit": limit} | ({"tag": tag} if tag else {})
    url = f"/api/v1/problems/{quote(slug, safe='')}/solutions"
    response = api.request("GET", url, params=params, passing=(LOCKED,))
    body = response.json()
    if body.get("error") == LOCKED:
        raise ClientError(
            f"{body.get('detail', 'solutions are locked')} Solve it first (torchdrill submit {slug} "
            "solution.py), or choose 'Give up and show solutions' on its Solutions page.",
            EXIT_NOT_ACCEPTED,
            error=LOCKED,
        )
    items = body["items"]
    if not items:
        echo(f"{slug} has no published solutions{' with tag ' + repr(tag) if tag else ''} yet")
    for item in items:
        _print(item)


def register(root: typer.Typer, command: Callable[[Callable[..., None]], Callable[..., None]]) -> None:
    root.command("solutions")(command(solutions))
