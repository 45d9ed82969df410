"""The host's comparison, total: every value a case reports is compared or refused with a message.

What reaches the host is JSON the harness wrote (``runner.values.encode``), but the harness runs in
the learner's process: the host trusts nothing about its shape. :func:`refusal` walks a reported
value without recursion, within the encoder's own bounds (depth, items), and admits only plain
data and well-formed tensors (a dtype, a shape whose product is the number of elements, numbers or
non-finite markers as elements) with numbers a float can hold. :func:`failure` then compares
(``runner.checks.judge``); should the comparison still raise, the case is the learner's error with a
message, never the platform's.
"""

from __future__ import annotations

import math
from typing import Any

from runner.judging import checks as judge
from runner.judging.failures import Failure
from runner.records.values import MAX_DEPTH, MAX_INT_BITS, MAX_ITEMS

NON_FINITE = frozenset({"nan", "inf", "-inf"})
REFUSED = "your code returned a value the judge cannot compare: {why}"


def refusal(value: Any) -> str | None:
    """Why a reported value cannot be compared, or None when it is plain data the host can read."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    items = 0
    while stack:
        item, depth = stack.pop()
        items += 1
        if depth > MAX_DEPTH + 2 or items > 2 * MAX_ITEMS:
            return "it is nested too deeply or holds too many items"
        if item is None or isinstance(item, bool | str):
            continue
        if isinstance(item, int):
            if item.bit_length() > MAX_INT_BITS:
                return "it holds an integer too large to compare as a number"
            continue
        if isinstance(item, float):
            continue
        if isinstance(item, list):
            stack.extend((x, depth + 1) for x in item)
            continue
        if isinstance(item, dict):
            if "__tensor__" in item:
                why = _tensor_refusal(item)
                if why:
                    return why
                continue
            if "__float__" in item:
                if set(item) != {"__float__"} or not _non_finite(item["__float__"]):
                    return "it holds a malformed number"
                continue
            stack.extend((x, depth + 1) for x in item.values())
            continue
        return f"it holds a {type(item).__name__}"
    return None


def _non_finite(marker: Any) -> bool:
    """Whether a ``__float__`` marker names a non-finite number (a forged one may be anything,
    an unhashable list included)."""
    return type(marker) is str and marker in NON_FINITE


def _tensor_refusal(item: dict[str, Any]) -> str | None:
    tensor = item.get("__tensor__")
    if set(item) != {"__tensor__"} or not isinstance(tensor, dict):
        return "it holds a malformed tensor"
    shape, data, dtype = tensor.get("shape"), tensor.get("data"), tensor.get("dtype")
    if not isinstance(dtype, str) or not isinstance(shape, list) or not isinstance(data, list):
        return "it holds a malformed tensor"
    if not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= MAX_ITEMS for d in shape):
        return "it holds a tensor with a malformed shape"
    if len(shape) > MAX_DEPTH or math.prod(shape) != len(data) or len(data) > MAX_ITEMS:
        return "it holds a tensor whose data does not match its shape"
    for x in data:
        if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > MAX_INT_BITS:
            return "it holds a tensor element too large to compare"
        if isinstance(x, dict) and not (set(x) == {"__float__"} and _non_finite(x["__float__"])):
            return "it holds a malformed tensor element"
        if not isinstance(x, int | float | dict):
            return "it holds a malformed tensor element"
    return None


def failure(expected: Any, actual: Any, rtol: float, atol: float, public: bool) -> Failure | None:
    """None when ``actual`` matches; else what failed. A value the judge refuses (kind ``refused``)
    is the learner's error, a difference a wrong answer."""
    why = refusal(actual)
    if why is not None:
        return Failure("refused", REFUSED.format(why=why))
    try:
        return judge.failure(expected, actual, rtol, atol, public)
    except (ArithmeticError, ValueError, TypeError, LookupError, RecursionError) as exc:
        return Failure("refused", REFUSED.format(why=f"comparing it failed ({type(exc).__name__})"))


def display(value: Any) -> str:
    """A public case's value as shown, or a placeholder when it cannot be shown."""
    if refusal(value) is not None:
        return "(a value the judge cannot compare)"
    try:
        return judge.display(value)
    except (ArithmeticError, ValueError, TypeError, LookupError, RecursionError):
        return "(a value the judge cannot show)"


def milliseconds(value: Any) -> float:
    """A case's reported time: the harness measures it in the learner's process, where the clock can
    be replaced, so anything but a plain, finite, non-negative number a float can hold reads as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        return 0.0
    return round(float(value), 3) if math.isfinite(value) and value >= 0 else 0.0
