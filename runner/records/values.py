"""Encoding of case values to JSON, and their bounded display.

Values leave the sandbox as JSON text only (never pickle: unpickling learner output
would run learner code on the host). Tensors become ``{"__tensor__": {...}}`` and
non-finite floats ``{"__float__": "nan"|"inf"|"-inf"}``; tuples become lists.

The comparison is the host's (``runner.judging.compare``), in plain Python, so nothing the learner
patched inside the sandbox (``torch.allclose``, ``float.__eq__`` ...) takes part in it.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from runner.records import display
from runner.records.check_value import TAG as CHECK_TAG
from runner.records.check_value import CheckValue

MAX_DEPTH = 64
MAX_ITEMS = 1_000_000
MAX_INT_BITS = 1023  # larger ints do not fit in a float, which is how the host compares numbers


class UnsupportedValue(TypeError):
    """A case returned something that is not JSON-like or a tensor."""


def _encode_float(x: float) -> Any:
    if math.isnan(x):
        return {"__float__": "nan"}
    if math.isinf(x):
        return {"__float__": "inf" if x > 0 else "-inf"}
    return x


def encode(value: Any, _depth: int = 0) -> Any:
    """Turn a case's return value into JSON-safe data. Runs inside the sandbox.

    Only real tensors and plain data: a subclass of a built-in is read through the built-in's own
    methods (``int.__add__``, ``dict.items``), so an overridden ``__eq__``/``__len__``/``__iter__``
    takes no part; a tensor must be a ``torch.Tensor`` or ``nn.Parameter`` exactly, not a class that
    only looks like one; an int must fit in a float (the host compares numbers as floats).
    """
    if _depth > MAX_DEPTH:
        raise UnsupportedValue("the returned value is nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is float:
        return _encode_float(value)
    if kind is int:
        return _encode_int(value)
    if isinstance(value, bool):  # a bool's subclass cannot exist; kept for clarity
        return bool(value)
    if isinstance(value, int):
        return _encode_int(int.__add__(value, 0))  # the int itself, not what its methods say
    if isinstance(value, float):
        return _encode_float(float.__add__(value, 0.0))
    if isinstance(value, str):
        return str.__str__(value)
    if kind is CheckValue:  # built by runner.testing.checks: the one place the reserved tag is made
        return {CHECK_TAG: encode(value.payload(), _depth + 1)}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        items = dict.items(value)
        if len(items) > MAX_ITEMS:
            raise UnsupportedValue(f"a dict with {len(items)} items is too large to compare")
        for key, item in items:
            if type(key) not in (str, int):
                raise UnsupportedValue(f"dict keys must be strings or ints, not {type(key).__name__}")
            if type(key) is str and key.startswith("__") and key.endswith("__"):
                raise UnsupportedValue(f"dict key {key!r} is reserved")
            out[str(key)] = encode(item, _depth + 1)
        return out
    if isinstance(value, list | tuple):
        seq = list(list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value))
        if len(seq) > MAX_ITEMS:
            raise UnsupportedValue(f"a sequence of {len(seq)} items is too large to compare")
        return [encode(item, _depth + 1) for item in seq]
    torch = sys.modules.get("torch")
    if torch is not None and kind in (torch.Tensor, torch.nn.Parameter):
        return _encode_tensor(value)
    numpy = sys.modules.get("numpy")
    if numpy is not None and (
        kind is numpy.ndarray or (isinstance(value, numpy.generic) and kind.__module__ == "numpy")
    ):
        return encode(value.tolist(), _depth + 1)
    raise UnsupportedValue(_refused(value))


def _encode_int(value: int) -> Any:
    if value.bit_length() > MAX_INT_BITS:
        raise UnsupportedValue(
            f"an integer of about {int(value.bit_length() * 0.30103)} digits is too large to compare "
            "(numbers are compared as floats): return a float or a tensor"
        )
    return value


def _refused(value: Any) -> str:
    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}" if kind.__module__ != "builtins" else kind.__name__
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return f"a tensor subclass ({name}) is not a plain tensor: return torch.Tensor values"
    if kind.__module__.startswith("torch"):
        return f"{name} is not a tensor or plain data: return tensors, numbers, lists or dicts"
    why = {
        "bytes": "bytes are not compared: return a str or a list of ints",
        "bytearray": "bytes are not compared: return a str or a list of ints",
        "set": "sets have no order to compare: return a sorted list",
        "frozenset": "sets have no order to compare: return a sorted list",
        "complex": "complex numbers are not compared: return [real, imag]",
    }.get(kind.__name__ if kind.__module__ == "builtins" else "")
    return why or (
        f"cases must return JSON-like values (dict, list, number, bool, str, None) or tensors, not {name}"
    )


def _encode_tensor(tensor: Any) -> dict[str, Any]:
    torch = sys.modules["torch"]  # a tensor exists, so torch is imported
    t = tensor.detach().cpu()
    if t.is_complex() or t.layout != torch.strided:
        raise UnsupportedValue("complex or sparse tensors are not supported as case values")
    if t.numel() > MAX_ITEMS:
        raise UnsupportedValue(f"tensor with {t.numel()} elements is too large to compare")
    data = t.reshape(-1).tolist()
    if t.is_floating_point() and not _plain_finite_floats(data):
        data = [_encode_float(float(x)) for x in data]
    return {
        "__tensor__": {"dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape), "data": data}
    }


def _plain_finite_floats(data: Any) -> bool:
    """True when ``data`` is a list of finite ``float``s exactly, so it is already encoded.

    In C loops (``map``, ``set``, ``sum``) rather than one Python call per element: a NaN or an
    infinity makes the sum NaN or infinite, and so does an overflow of finite values, which only
    sends the data through the element-by-element encoding. Anything else a patched ``tolist``
    may return (ints, bools, nested lists, a string) takes that path too and is judged or
    refused there, as before.
    """
    if type(data) is not list:
        return False
    if not data:
        return True
    if set(map(type, data)) != {float}:
        return False
    return math.isfinite(sum(data))


def decode_float(x: Any) -> Any:
    """A number as encoded (NaN and infinities are ``{"__float__": ...}``), back as a float."""
    if isinstance(x, dict) and set(x) == {"__float__"}:
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(x["__float__"], math.nan)
    return x


def to_display(value: Any, limit: int = 2000, lines: bool = True) -> str:
    """A readable, bounded rendering of an encoded value (``runner.records.display``); ``lines``:
    a tensor's rows one a line (as a value is shown), else all on one (inside a sentence)."""
    text = display.value(value, lines, room=limit if limit < 2000 else None)
    return text if len(text) <= limit else text[: limit - 1] + "…"
