"""The host's comparison of two encoded values (``runner.records.values``), with a case's
tolerances: the first difference, located and worded, or None when they match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from runner.records.values import decode_float


@dataclass(frozen=True)
class Mismatch:
    path: str
    reason: str


def _path(parts: list[str]) -> str:
    return "".join(parts) or "the value"


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def _kind(v: Any) -> str:
    if isinstance(v, dict) and "__tensor__" in v:
        return "tensor"
    if isinstance(v, dict) and "__float__" in v:
        return "number"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    if v is None:
        return "None"
    return _KIND_NAMES.get(type(v), type(v).__name__)


_KIND_NAMES: dict[type, str] = {dict: "dict", list: "list", str: "str"}


def compare(expected: Any, actual: Any, rtol: float, atol: float) -> Mismatch | None:
    """First difference between two encoded values, or None when they match."""
    return _compare(expected, actual, rtol, atol, [])


def _compare(e: Any, a: Any, rtol: float, atol: float, path: list[str]) -> Mismatch | None:
    ek, ak = _kind(e), _kind(a)
    if ek != ak:
        return Mismatch(_path(path), f"expected a {ek}, got a {ak}")
    if ek == "tensor":
        return _compare_tensor(e["__tensor__"], a["__tensor__"], rtol, atol, path)
    if ek == "dict":
        missing = [k for k in e if k not in a]
        extra = [k for k in a if k not in e]
        if missing:
            return Mismatch(_path(path), f"missing key {missing[0]!r}")
        if extra:
            return Mismatch(_path(path), f"unexpected key {extra[0]!r}")
        for key in e:
            found = _compare(e[key], a[key], rtol, atol, [*path, f"[{key!r}]"])
            if found:
                return found
        return None
    if ek == "list":
        if len(e) != len(a):
            return Mismatch(_path(path), f"expected {len(e)} items, got {len(a)}")
        for i, (x, y) in enumerate(zip(e, a, strict=True)):
            found = _compare(x, y, rtol, atol, [*path, f"[{i}]"])
            if found:
                return found
        return None
    if ek == "number":
        x, y = float(decode_float(e)), float(decode_float(a))
        if not _close(y, x, rtol, atol):
            return Mismatch(_path(path), f"expected {_fmt(x)}, got {_fmt(y)} (off by {_fmt(abs(x - y))})")
        return None
    if e != a:
        return Mismatch(_path(path), f"expected {e!r}, got {a!r}")
    return None


def _compare_tensor(
    e: dict[str, Any], a: dict[str, Any], rtol: float, atol: float, path: list[str]
) -> Mismatch | None:
    where = _path(path)
    if e.get("shape") != a.get("shape"):
        return Mismatch(
            where, f"tensor shape differs: expected {tuple(e['shape'])}, got {tuple(a.get('shape', []))}"
        )
    if e.get("dtype") != a.get("dtype"):
        return Mismatch(where, f"tensor dtype differs: expected {e['dtype']}, got {a.get('dtype')}")
    ed, ad = e.get("data", []), a.get("data", [])
    if not isinstance(ad, list) or len(ed) != len(ad):
        return Mismatch(where, "tensor data is malformed")
    worst, worst_i, bad = 0.0, -1, 0
    for i, (x, y) in enumerate(zip(ed, ad, strict=True)):
        fx, fy = decode_float(x), decode_float(y)
        if isinstance(fx, bool) or isinstance(fy, bool):
            ok = fx == fy
            diff = 0.0 if ok else 1.0
        elif not isinstance(fy, int | float):
            return Mismatch(where, "tensor data is malformed")
        else:
            ok = _close(float(fy), float(fx), rtol, atol)
            diff = abs(float(fx) - float(fy)) if not (math.isnan(fx) or math.isnan(fy)) else math.inf
        if not ok:
            bad += 1
            if diff >= worst:
                worst, worst_i = diff, i
    if bad:
        return Mismatch(
            where,
            f"{bad} of {len(ed)} tensor elements differ; max abs error {_fmt(worst)} "
            f"at flat index {worst_i} (rtol={rtol:g}, atol={atol:g})",
        )
    return None


def _fmt(x: float) -> str:
    return f"{x:.6g}"
