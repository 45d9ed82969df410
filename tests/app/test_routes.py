"""No path of one router is a path of another: the order ``create_app`` includes them in (the REST
API first, for speed) decides nothing but how soon a request finds its route."""

from __future__ import annotations

import re
from collections.abc import Iterator

from fastapi import FastAPI
from starlette.routing import compile_path

PARAMETER = re.compile(r"{[^}]+}")


def routes(app: FastAPI) -> Iterator[tuple[int, str, frozenset[str]]]:
    """(the top-level entry it is reached through, its path template, its methods) for every
    route the app serves, the routers' own flattened."""
    for entry, route in enumerate(app.router.routes):
        contexts = getattr(route, "effective_route_contexts", None)
        found = list(contexts()) if contexts is not None else [route]
        for context in found:
            path = getattr(context, "path_format", None) or getattr(context, "path", None)
            methods = getattr(context, "methods", None)
            if path and methods:  # a mount (static files) has no methods: none of its paths is a route's
                yield entry, path, frozenset(methods)


def test_no_path_is_served_by_two_routers(app: FastAPI) -> None:
    served = list(routes(app))
    assert len({entry for entry, _, _ in served}) > 10 and any(p.startswith("/api/v1/") for _, p, _ in served)
    clashes = []
    for entry, template, methods in served:
        path = PARAMETER.sub("1", template)  # a value every converter takes
        for other_entry, other_template, other_methods in served:
            regex = compile_path(other_template)[0]
            if other_entry != entry and methods & other_methods and regex.match(path):
                clashes.append(f"{sorted(methods)} {template} is also {other_template}")
    assert clashes == []
