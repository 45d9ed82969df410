"""Custom input as a learner types it: JSON or Python literals, read as data and never executed.

The problem page's panel, ``torchdrill run --input FILE`` and the APIs all read text the same
way: JSON first, then Python literals with :func:`ast.literal_eval` (``{'x': (1, 2)}``, ``True``,
``None``), never ``eval``. The result is then checked by :func:`runner.format.inputs.parse_arguments`.
"""

from __future__ import annotations

import ast
import json
import math
from typing import Any

from runner.format.inputs import InputError, parse_arguments

MAX_TEXT = 200_000


def _plain(value: Any, where: str) -> Any:
    """Tuples become lists; sets, bytes, complex numbers and non-finite floats are refused."""
    if isinstance(value, tuple | list):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: only finite numbers can be given (not {value})")
    if isinstance(value, set | frozenset | bytes | complex):
        raise InputError(f"{where}: {type(value).__name__} is not an input value (use a list or a number)")
    return value


def read_arguments(text: str) -> dict[str, Any]:
    """The arguments in ``text`` (JSON or Python literals), checked; raises :class:`InputError`."""
    if len(text) > MAX_TEXT:
        raise InputError(f"input: the text is longer than {MAX_TEXT:,} characters")
    if not text.strip():
        raise InputError('input: it is empty; give the arguments as a table, e.g. {"x": 1}')
    try:
        data = json.loads(text)
    except json.JSONDecodeError as json_error:
        try:
            data = ast.literal_eval(text.strip())
        except SyntaxError as exc:
            raise InputError(
                "input: this is neither JSON nor a Python literal "
                f"(JSON: {json_error.msg} at line {json_error.lineno}, column {json_error.colno}; "
                f"Python: {exc.msg} at line {exc.lineno})"
            ) from None
        except (ValueError, TypeError, MemoryError, RecursionError):
            raise InputError(
                "input: only literal values are allowed: numbers, strings, lists, tuples, tables "
                "(dicts), True/False/None; no names, calls or expressions"
            ) from None
    except RecursionError:
        raise InputError("input: it is nested too deeply") from None
    return parse_arguments(_plain(data, "input"))


def check_arguments(data: Any) -> dict[str, Any]:
    """Arguments already decoded (an API body's ``input``), checked like typed text."""
    return parse_arguments(_plain(data, "input"))
