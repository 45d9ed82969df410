"""One-line fields on every route: the rule of ``runner.format.fields`` as a 422.

:func:`check_one_line` is for services: pages, the API, zip imports and the CLI call the same ones,
so one check holds on every route.
"""

from __future__ import annotations

from app.kit.errors import InvalidInput
from runner.format.fields import one_line_error


def check_one_line(value: str, field: str) -> str:
    """``value`` unchanged, or 422 ``invalid_input`` naming the control character it holds."""
    error = one_line_error(field, value)
    if error is not None:
        raise InvalidInput(error, field=field)
    return value
