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

from runner.records.check_value import TAG as CHECK_TAG
from runner.records.check_value import CheckValue

MAX_DEPTH = 64
MAX_ITEMS = 1_000_000


class UnsupportedValue(TypeError):
    """A case returned something that is not JSON-like or a tensor."""


def _encode_float(x: float) -> Any:
    if math.isnan(x):
        return {"__float__": "nan"}
    if math.isinf(x):
        return {"__float__": "inf" if x > 0 else "-inf"}
    return x


def encode(value: Any, _depth: int = 0) -> Any:
    """Turn a case's return value into JSON-safe data. Runs inside the sandbox."""
    if _depth > MAX_DEPTH:
        raise UnsupportedValue("the returned value is nested too deeply")
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _encode_float(value)
    if isinstance(
        value, CheckValue
    ):  # built by runner.testing.checks: the one place the reserved tag is made
        return {CHECK_TAG: encode(value.payload(), _depth + 1)}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str | int):
                raise UnsupportedValue(f"dict keys must be strings or ints, not {type(key).__name__}")
            if isinstance(key, str) and key.startswith("__") and key.endswith("__"):
                raise UnsupportedValue(f"dict key {key!r} is reserved")
            out[str(key)] = encode(item, _depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [encode(item, _depth + 1) for item in value]
    type_name = type(value).__module__ + "." + type(value).__qualname__
    if type_name.startswith("torch") and hasattr(value, "detach") and hasattr(value, "dtype"):
        return _encode_tensor(value)
    if type_name.startswith("numpy") and hasattr(value, "tolist"):
        return encode(value.tolist(), _depth + 1)
    raise UnsupportedValue(
        f"cases must return JSON-like values (dict, list, number, bool, str, None) or tensors, "
        f"not {type(value).__name__}"
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


def to_display(value: Any, limit: int = 2000) -> str:
    """A readable, bounded rendering of an encoded value (tensors shown as tensor(...))."""
    text = _display(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _display(v: Any) -> str:
    if isinstance(v, dict) and "__tensor__" in v:
        t = v["__tensor__"]
        data = [_display(decode_float(x)) for x in t.get("data", [])[:64]]
        more = ", …" if len(t.get("data", [])) > 64 else ""
        return f"tensor([{', '.join(data)}{more}], shape={tuple(t.get('shape', []))}, dtype={t.get('dtype')})"
    if isinstance(v, dict) and set(v) == {"__float__"}:
        return v["__float__"]
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_display(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_display(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return repr(v)
