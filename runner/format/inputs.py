"""Arguments as data: the format of a problem's ``[example_input]`` and of a learner's custom input.

An entry point's arguments are given by name as JSON-like data, never as code::

    {"x": {"tensor": [[1.0, 2.0], [3.0, 4.0]], "dtype": "float32"}, "dim": 1}

* a tensor is a table with the key ``tensor`` (a rectangular nested list of numbers or booleans)
  and optionally ``dtype`` (one of :data:`DTYPES`; default ``float32`` for numbers with a
  fraction, ``int64`` for integers, ``bool`` for booleans) and ``requires_grad`` (a boolean);
* anything else is a plain value: a number, a boolean, a string, ``null``, a list or a table with
  string keys.

:func:`parse_arguments` checks the data on the host (nothing is executed) and returns it
normalised; :func:`materialise` turns it into Python values and tensors inside the sandbox;
:func:`read_arguments` reads them from text as a learner types it (JSON or Python literals, read as
data and never executed).
"""

from __future__ import annotations

import ast
import json
import math
from typing import Any

DTYPES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
)
MAX_DEPTH = 12
MAX_ELEMENTS = 100_000
MAX_STRING = 10_000
MAX_ARGUMENTS = 16


class InputError(ValueError):
    """The data is not a valid argument list; the message names the argument and the rule."""


class _Budget:
    def __init__(self) -> None:
        self.elements = 0

    def spend(self, n: int, where: str) -> None:
        self.elements += n
        if self.elements > MAX_ELEMENTS:
            raise InputError(f"{where}: the input is too large (more than {MAX_ELEMENTS:,} values in all)")


def _tensor_shape(data: Any, where: str, depth: int, budget: _Budget) -> tuple[list[int], set[str]]:
    """Shape and element kinds of a nested list; refuses ragged lists and non-numbers."""
    if depth > MAX_DEPTH:
        raise InputError(f"{where}: a tensor has at most {MAX_DEPTH} dimensions")
    if isinstance(data, bool):
        budget.spend(1, where)
        return [], {"bool"}
    if isinstance(data, int):
        budget.spend(1, where)
        return [], {"int"}
    if isinstance(data, float):
        budget.spend(1, where)
        return [], {"float"}
    if not isinstance(data, list):
        raise InputError(f"{where}: a tensor's values must be numbers or booleans in nested lists")
    if not data:
        return [0], set()
    shapes = [_tensor_shape(item, f"{where}[{i}]", depth + 1, budget) for i, item in enumerate(data)]
    first = shapes[0][0]
    for i, (shape, _) in enumerate(shapes):
        if shape != first:
            raise InputError(
                f"{where}[{i}]: rows of a tensor must all have the same shape ({first} vs {shape})"
            )
    kinds: set[str] = set().union(*(k for _, k in shapes))
    return [len(data), *first], kinds


def _default_dtype(kinds: set[str]) -> str:
    if kinds == {"bool"}:
        return "bool"
    if kinds and kinds <= {"int"}:
        return "int64"
    return "float32"


def _value(data: Any, where: str, depth: int, budget: _Budget) -> Any:
    if depth > MAX_DEPTH:
        raise InputError(f"{where}: values are nested at most {MAX_DEPTH} deep")
    if data is None or isinstance(data, bool | int):
        budget.spend(1, where)
        return data
    if isinstance(data, float):
        budget.spend(1, where)
        return data
    if isinstance(data, str):
        if len(data) > MAX_STRING:
            raise InputError(f"{where}: a string has at most {MAX_STRING:,} characters")
        budget.spend(1, where)
        return data
    if isinstance(data, list):
        return [_value(item, f"{where}[{i}]", depth + 1, budget) for i, item in enumerate(data)]
    if isinstance(data, dict):
        if "tensor" in data:
            return _tensor(data, where, depth, budget)
        out = {}
        for key, item in data.items():
            if not isinstance(key, str):
                raise InputError(f"{where}: table keys must be strings")
            out[key] = _value(item, f"{where}.{key}", depth + 1, budget)
        return out
    raise InputError(
        f"{where}: {type(data).__name__} is not an input value (numbers, strings, lists, tables)"
    )


def _tensor(data: dict[str, Any], where: str, depth: int, budget: _Budget) -> dict[str, Any]:
    unknown = set(data) - {"tensor", "dtype", "requires_grad"}
    if unknown:
        raise InputError(f"{where}: unknown keys for a tensor: {', '.join(sorted(unknown))}")
    _, kinds = _tensor_shape(data["tensor"], f"{where}.tensor", depth + 1, budget)
    dtype = data.get("dtype", _default_dtype(kinds))
    if dtype not in DTYPES:
        raise InputError(f"{where}.dtype: {dtype!r} is not one of {', '.join(DTYPES)}")
    if dtype != "bool" and "bool" in kinds and kinds != {"bool"}:
        raise InputError(f"{where}.tensor: do not mix booleans and numbers in one tensor")
    if dtype.startswith(("int", "uint")) and "float" in kinds:
        raise InputError(f"{where}.tensor: {dtype} cannot hold fractional values")
    requires_grad = data.get("requires_grad", False)
    if not isinstance(requires_grad, bool):
        raise InputError(f"{where}.requires_grad must be true or false")
    if requires_grad and not dtype.startswith(("float", "bfloat")):
        raise InputError(f"{where}: only floating-point tensors can require gradients")
    out: dict[str, Any] = {"tensor": data["tensor"], "dtype": dtype}
    if requires_grad:
        out["requires_grad"] = True
    return out


def parse_arguments(data: Any, where: str = "input") -> dict[str, Any]:
    """Check ``data`` (argument name -> value) and return it normalised; raise :class:`InputError`."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: give the arguments as a table of name = value")
    if len(data) > MAX_ARGUMENTS:
        raise InputError(f"{where}: at most {MAX_ARGUMENTS} arguments")
    budget = _Budget()
    out = {}
    for name, value in data.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise InputError(f"{where}: {name!r} is not an argument name")
        out[name] = _value(value, f"{where}.{name}", 1, budget)
    return out


def materialise(value: Any) -> Any:
    """Inside the sandbox: data -> Python values with tensors (``torch`` is imported lazily)."""
    if isinstance(value, dict):
        if "tensor" in value:
            import torch

            dtype = getattr(torch, value.get("dtype", "float32"))
            tensor = torch.tensor(value["tensor"], dtype=dtype)
            if value.get("requires_grad"):
                tensor.requires_grad_(True)
            return tensor
        return {k: materialise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [materialise(v) for v in value]
    return value


def with_gradients(output: Any, arguments: dict[str, Any]) -> Any:
    """Inside the sandbox, for custom input: the output, and when arguments require gradients and
    the output is a tensor in their graph, ``{"output": ..., "grad": {name: gradient}}`` of
    ``output.sum()`` — so a wrong backward differs from the reference's here as it does on Run."""
    import torch

    wanted = {n: a for n, a in arguments.items() if isinstance(a, torch.Tensor) and a.requires_grad}
    if not wanted or not isinstance(output, torch.Tensor) or not output.requires_grad:
        return output
    output.sum().backward()
    return {"output": output.detach(), "grad": {n: a.grad for n, a in wanted.items()}}


# --- text as a learner types it ------------------------------------------------------------------
# The problem page's panel, ``torchdrill run --input FILE`` and the APIs all read text the same way:
# JSON first, then Python literals with :func:`ast.literal_eval` (``{'x': (1, 2)}``, ``True``,
# ``None``), then the statement's notation (``runner.format.notation``: ``x = torch.ones(2, 3)``,
# read from its syntax tree), never ``eval``; the result is then checked by :func:`parse_arguments`.

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


def _notation(text: str) -> dict[str, Any] | None:
    """The statement's notation (``runner.format.notation``), or None when the text is not Python."""
    from runner.format.notation import read_notation  # it builds on this module's rules

    try:
        return read_notation(text)
    except RecursionError:
        raise InputError("input: it is nested too deeply") from None


def read_arguments(text: str) -> dict[str, Any]:
    """The arguments in ``text`` (JSON, Python literals, or the statement's notation: assignments
    with ``torch.tensor([...])`` and other constructors of literal arguments), checked; raises
    :class:`InputError`. Nothing is executed."""
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
            data = _notation(text)
            if data is None:
                raise InputError(
                    "input: this is neither JSON, a Python literal nor the statement's notation "
                    f"(JSON: {json_error.msg} at line {json_error.lineno}, column {json_error.colno}; "
                    f"Python: {exc.msg} at line {exc.lineno})"
                ) from None
        except (ValueError, TypeError, MemoryError, RecursionError):
            data = _notation(text)
            if data is None:
                raise InputError(
                    "input: only literal values are allowed: numbers, strings, lists, tuples, tables "
                    "(dicts), True/False/None, and tensors as the statement writes them "
                    "(torch.tensor([...]), torch.zeros(2, 3), ...); no other names, calls or expressions"
                ) from None
    except RecursionError:
        raise InputError("input: it is nested too deeply") from None
    return parse_arguments(_plain(data, "input"))


def check_arguments(data: Any) -> dict[str, Any]:
    """Arguments already decoded (an API body's ``input``), checked like typed text."""
    return parse_arguments(_plain(data, "input"))


def input_text(arguments: dict[str, Any]) -> str | None:
    """Arguments (as :func:`parse_arguments` takes them) as the text a learner types: one argument a
    line, numbers in their dtype's own precision (they read back as the same values); None when a
    value cannot be written exactly (a non-finite number)."""
    from runner.records.display import number

    def write(value: Any, dtype: str) -> str | None:
        if isinstance(value, list):
            parts = [write(v, dtype) for v in value]
            return None if None in parts else "[" + ", ".join(p for p in parts if p is not None) + "]"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return number(value, dtype) if math.isfinite(value) else None
        return json.dumps(value)

    lines = []
    for name, value in arguments.items():
        if isinstance(value, dict) and "tensor" in value:
            data = write(value["tensor"], str(value.get("dtype", "float32")))
            if data is None:
                return None
            grad = ', "requires_grad": true' if value.get("requires_grad") else ""
            text = f'{{"tensor": {data}, "dtype": {json.dumps(value.get("dtype", "float32"))}{grad}}}'
        else:
            try:
                text = json.dumps(value, allow_nan=False)
            except (TypeError, ValueError):
                return None
        lines.append(f"  {json.dumps(name)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}"
