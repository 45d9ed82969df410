"""Values as a learner reads them: tensors nested like the statement's examples, numbers in their
dtype's own precision (a float32 0.6 prints ``0.6``, not ``0.6000000238418579``), big tensors
summarised with their shape and dtype.

Works on encoded values (``runner.records.values``) and on plain lists, on the host and in the
sandbox (a family check describes its inputs with it), in plain Python.
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any

SHOWN = 100  # tensors up to this many elements are shown whole
SUMMARY = 8  # values shown of a bigger one
_DIGITS = {"float16": 5, "bfloat16": 4, "float32": 9}
# Below these digits a rounding that reads back is always the shortest one padded with zeros
# (which ``g`` strips): the dtype's half ulp is smaller than half a unit of the last digit.
_FIRST = {"float16": 3, "bfloat16": 2, "float32": 6}
# the dtype torch.tensor gives a literal of these elements: not repeated in the text
_IMPLIED = {"float32", "int64", "bool"}


def _bits(x: float, dtype: str) -> int:
    if dtype == "float16":
        try:
            return int.from_bytes(struct.pack("<e", x), "little")
        except OverflowError:
            return -1
    try:
        bits = int.from_bytes(struct.pack("<f", x), "little")
    except OverflowError:
        return -1
    if dtype == "bfloat16":  # round to nearest even, as torch does
        return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits


def number(x: Any, dtype: str = "float64") -> str:
    """One number as short as its dtype allows while reading back as the same value."""
    if isinstance(x, bool) or not isinstance(x, float):
        return repr(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    digits = _DIGITS.get(dtype)
    text = repr(x)
    numpy = sys.modules.get("numpy")  # its shortest repr, in C, when torch has loaded it already
    if numpy is not None and dtype in ("float32", "float16"):
        text = str(getattr(numpy, dtype)(x))
    elif digits is not None:
        target = _bits(x, dtype)
        for precision in range(_FIRST[dtype], digits + 1):
            candidate = f"{x:.{precision}g}"
            if _bits(float(candidate), dtype) == target:
                text = candidate
                break
    if "e" in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}e{int(exponent)}"
    elif "." not in text and "n" not in text:
        text += ".0"
    return text


def _decode(x: Any) -> Any:
    if isinstance(x, dict) and set(x) == {"__float__"}:
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(x["__float__"], math.nan)
    return x


def _nest(flat: list[str], shape: list[int], indent: int | None) -> str:
    """Elements already formatted, nested by ``shape``; with an ``indent``, the rows of a 2-d or
    bigger tensor one a line."""
    if not shape:
        return flat[0] if flat else ""
    if len(shape) == 1:
        return "[" + ", ".join(flat) + "]"
    step = math.prod(shape[1:])
    inner = None if indent is None else indent + 1
    parts = [_nest(flat[i * step : (i + 1) * step], shape[1:], inner) for i in range(shape[0])]
    sep = ", " if indent is None else "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def nested(payload: dict[str, Any]) -> str:
    """A small tensor's values on one line, nested like the statement's lists: ``[[0.6, 1.0]]``."""
    dtype = str(payload.get("dtype", ""))
    shape = [d for d in payload.get("shape", []) if isinstance(d, int)]
    data = payload.get("data", [])
    data = data if isinstance(data, list) and len(data) == math.prod(shape) else []
    return _nest([number(_decode(x), dtype) for x in data], shape, None) if data else "[]"


def tensor(payload: dict[str, Any], lines: bool = True, room: int | None = None) -> str:
    """``tensor([[1.0, 2.0], [3.0, 4.0]])`` as the statement writes it; a big one summarised."""
    dtype = str(payload.get("dtype", ""))
    shape = [d for d in payload.get("shape", []) if isinstance(d, int)]
    data = payload.get("data", [])
    data = data if isinstance(data, list) else []
    # ``room``: the characters the text may take; a tensor that cannot fit whole is summarised
    # rather than cut (and its elements are not all written only to be cut away)
    too_big = len(data) > SHOWN or (room is not None and 4 * len(data) > room)
    if too_big or len(data) != math.prod(shape):
        first = ", ".join(number(_decode(x), dtype) for x in data[:SUMMARY])
        more = ", …" if len(data) > SUMMARY else ""
        shown = min(SUMMARY, len(data))
        head = f"tensor of shape {tuple(shape)}, dtype {dtype}"
        return f"{head}: [{first}{more}] (first {shown} of {len(data)} values)"
    flat = [number(_decode(x), dtype) for x in data]
    suffix = "" if dtype in _IMPLIED and (data or dtype == "float32") else f", dtype={dtype}"
    if not data and len(shape) > 1:
        return f"tensor([], size={tuple(shape)}{suffix})"
    body = _nest(flat, shape, len("tensor(") if lines else None)
    return f"tensor({body}{suffix})"


def value(v: Any, lines: bool = True, room: int | None = None) -> str:
    """Any encoded value, readable; ``lines``: a tensor's rows one a line; ``room``: see :func:`tensor`."""
    if isinstance(v, dict) and "__tensor__" in v and isinstance(v["__tensor__"], dict):
        return tensor(v["__tensor__"], lines, room)
    if isinstance(v, dict) and set(v) == {"__float__"}:
        return str(v["__float__"])
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {value(x, lines)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(value(x, lines) for x in v) + "]"
    if isinstance(v, float):
        return number(v, "float32" if _is_float32(v) else "float64")
    return repr(v)


def _is_float32(x: float) -> bool:
    """A plain number that a float32 holds exactly (``.item()`` of a float32 tensor): shown in
    float32's precision, as its tensor would be (0.905, not 0.9049999713897705)."""
    try:
        return math.isfinite(x) and struct.unpack("<f", struct.pack("<f", x))[0] == x
    except OverflowError:
        return False
