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
    """Where two values first differ and how: ``kind`` is the failure vocabulary's
    (``runner.judging.failures``); ``reason`` may show the expected value (public cases only),
    ``hidden`` never does."""

    path: str
    reason: str
    kind: str = "values"
    hidden: str = ""
    max_error: float | None = None
    # a count, flag, name or structure differs rather than a measured number: in a case of a
    # statement's rule, that is the rule's evidence (how many calls, whether it was restored)
    discrete: bool = False

    def words(self, public: bool) -> str:
        """What differs, located: with the expected value only when ``public``."""
        where = "" if self.path == "the value" else f"at {self.path}: "
        return where + (self.reason if public or not self.hidden else self.hidden)


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
        return Mismatch(_path(path), f"expected a {ek}, got a {ak}", "type", discrete=True)
    if ek == "tensor":
        return _compare_tensor(e["__tensor__"], a["__tensor__"], rtol, atol, path)
    if ek == "dict":
        missing = [k for k in e if k not in a]
        extra = [k for k in a if k not in e]
        if missing:
            return Mismatch(_path(path), f"missing key {missing[0]!r}", "type", discrete=True)
        if extra:
            return Mismatch(_path(path), f"unexpected key {extra[0]!r}", "type", discrete=True)
        for key in e:
            found = _compare(e[key], a[key], rtol, atol, [*path, f"[{key!r}]"])
            if found:
                return found
        return None
    if ek == "list":
        if len(e) != len(a):
            return Mismatch(_path(path), f"expected {len(e)} items, got {len(a)}", "type", discrete=True)
        for i, (x, y) in enumerate(zip(e, a, strict=True)):
            found = _compare(x, y, rtol, atol, [*path, f"[{i}]"])
            if found:
                return found
        return None
    if ek == "number":
        x, y = float(decode_float(e)), float(decode_float(a))
        if not _close(y, x, rtol, atol):
            if math.isfinite(x) and not math.isfinite(y):
                return Mismatch(
                    _path(path), f"expected {_fmt(x)}, got {_fmt(y)}", "non_finite", f"got {_fmt(y)}"
                )
            error = abs(x - y) if math.isfinite(x - y) else math.inf
            tolerance = f"(rtol={rtol:g}, atol={atol:g})"
            return Mismatch(
                _path(path),
                f"expected {_fmt(x)}, got {_fmt(y)}: off by {_fmt(error)} {tolerance}",
                "values",
                f"off by {_fmt(error)} {tolerance}",
                error,
                discrete=type(e) is int and type(a) is int,
            )
        return None
    if e != a:
        return Mismatch(
            _path(path),
            f"expected {e!r}, got {a!r}",
            "values",
            "differs from the expected value",
            discrete=True,
        )
    return None


def _compare_tensor(
    e: dict[str, Any], a: dict[str, Any], rtol: float, atol: float, path: list[str]
) -> Mismatch | None:
    where = _path(path)
    if e.get("shape") != a.get("shape"):
        shape = f"the output has shape {tuple(a.get('shape', []))}; it should have shape {tuple(e['shape'])}"
        return Mismatch(where, shape, "shape")
    if e.get("dtype") != a.get("dtype"):
        dtype = f"the output has dtype {a.get('dtype')}; it should be {e['dtype']}"
        return Mismatch(where, dtype, "dtype")
    ed, ad = e.get("data", []), a.get("data", [])
    if not isinstance(ad, list) or len(ed) != len(ad):
        return Mismatch(where, "tensor data is malformed")
    worst, worst_i, bad, non_finite = 0.0, -1, 0, -1
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
            if not ok and non_finite < 0 and math.isfinite(fx) and not math.isfinite(fy):
                non_finite = i
        if not ok:
            bad += 1
            if diff >= worst:
                worst, worst_i = diff, i
    if not bad:
        return None
    dims: list[int] = list(e.get("shape") or [])
    if non_finite >= 0:
        value = _fmt(float(decode_float(ad[non_finite])))
        seen = (
            f"{value} at index {_unravel(non_finite, dims)} where a finite value is expected "
            f"({bad} of {len(ed)} elements differ)"
        )
        return Mismatch(where, seen, "non_finite", seen)
    seen = (
        f"{bad} of {len(ed)} elements differ; the largest error is {_fmt(worst)} "
        f"at index {_unravel(worst_i, dims)} (rtol={rtol:g}, atol={atol:g})"
    )
    return Mismatch(where, seen, "values", seen, worst)


def _unravel(flat: int, shape: list[int]) -> str:
    """A flat index as the tensor's own index, e.g. ``[1, 2]`` (``[]`` for a 0-d tensor)."""
    index: list[int] = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return "[" + ", ".join(str(i) for i in reversed(index)) + "]"


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def discrete_difference(expected: Any, actual: Any) -> bool:
    """Whether a count, flag, name or the structure differs anywhere in two plain encoded values
    (not only at their first difference): in a rule's case, that is the rule's evidence. Walks
    without recursion, within the bounds the host already checked (``host_compare.refusal``)."""
    stack = [(expected, actual)]
    while stack:
        e, a = stack.pop()
        ek, ak = _kind(e), _kind(a)
        if ek != ak:
            return True
        if ek == "dict":
            if set(e) != set(a):
                return True
            stack.extend((e[k], a[k]) for k in e)
        elif ek == "list":
            if len(e) != len(a):
                return True
            stack.extend(zip(e, a, strict=True))
        elif ek == "number":
            if type(e) is int and type(a) is int and e != a:
                return True
        elif ek != "tensor" and e != a:
            return True
    return False
