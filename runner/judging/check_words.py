"""On the host: what a check's measurements say the learner's code did, in words, per kind of check.

Everything read from the learner's value is untrusted: read defensively and cleaned
(:func:`runner.records.text.clean`) before it becomes part of a message. :mod:`runner.judging.checks`
decides whether a check value differs and picks the composer here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from runner.format.inputs import MAX_TEXT, check_arguments, input_text
from runner.judging import compare
from runner.records import values
from runner.records.text import clean

PIECE_CHARS = 300


# Reading untrusted measurements -------------------------------------------------------------------


def piece(value: Any, limit: int = PIECE_CHARS) -> str:
    """An untrusted value as a cleaned piece of a message, at most ``limit`` characters."""
    text = value if isinstance(value, str) else values.to_display(value, limit, lines=False)
    return clean(text, limit)


def _num(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "?"
    return "nan" if math.isnan(value) else f"{value:.3g}"


def _index(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in value):
        return "[" + ", ".join(str(i) for i in value[:8]) + "]"
    return "?"


def _get(data: Any, *keys: str | int) -> Any:
    for key in keys:
        if isinstance(data, dict) and isinstance(key, str):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            return None
    return data


def _detail(expected: Any, actual: Any, rtol: float, atol: float, public: bool) -> str:
    """The value difference (a hidden case's words never show its expected value)."""
    mismatch = compare.compare(expected, actual, rtol, atol)
    return f" ({piece(mismatch.words(public))})" if mismatch else ""


def _value_kind(expected: Any, actual: Any, rtol: float, atol: float) -> str:
    mismatch = compare.compare(expected, actual, rtol, atol)
    return mismatch.kind if mismatch else "values"


# One composer per kind: what the learner's code did, in words ------------------------------------

Payload = dict[str, Any]
Problems = list[tuple[str, str]]  # (failure kind, what was seen), most telling first


def _gradients(exp: Payload, act: Payload, rtol: float, atol: float, public: bool) -> Problems:
    e, a = exp["compared"], act.get("compared")
    if compare.compare(_get(e, "output"), _get(a, "output"), rtol, atol):
        detail = _detail(_get(e, "output"), _get(a, "output"), rtol, atol, public)
        kind = _value_kind(_get(e, "output"), _get(a, "output"), rtol, atol)
        return [
            (
                kind,
                f"the output itself is wrong{detail}; gradients are checked once the forward pass is right",
            )
        ]
    problems: Problems = []
    for order, key in (("", "gradients"), ("second ", "second_order")):
        if order and problems:
            break  # second derivatives of a wrong first derivative say nothing more
        for name, expected_grad in (_get(e, key) or {}).items():
            actual_grad = _get(a, key, name)
            wrt = f"d(output)/d({piece(name, 60)})" if not order else f"d²(output)/d({piece(name, 60)})²"
            if expected_grad is not None and actual_grad is None:
                problems.append(
                    (
                        "gradients",
                        f"{wrt} is missing: no gradient reaches {piece(name, 60)} (is the graph cut by "
                        ".detach(), .item(), .data or torch.no_grad()?)"
                        if not order
                        else f"{wrt} is missing: your backward is not differentiable itself (it detaches "
                        "its inputs or runs under torch.no_grad())",
                    )
                )
            elif compare.compare(expected_grad, actual_grad, rtol, atol):
                fd = _get(act, "seen", "second_order" if order else "inputs", name)
                error = _get(fd, "max_abs_error")
                if isinstance(error, int | float) and not isinstance(error, bool):
                    problems.append(
                        (
                            "gradients",
                            f"{wrt} differs from finite differences: max abs error {_num(error)} "
                            f"at index {_index(_get(fd, 'index'))}",
                        )
                    )
                else:
                    detail = _detail(expected_grad, actual_grad, rtol, atol, public)
                    problems.append(("gradients", f"{wrt} differs from the expected gradient{detail}"))
    if not problems and _get(a, "holds") is not True:
        problems.append(("gradients", "torch.autograd.gradcheck fails on your function in float64"))
    return problems or [("gradients", "the gradients differ from the expected ones")]


_PROPERTY_WORDS: dict[str, Callable[[str, Any, Any], str]] = {
    "shape": lambda label, e, a: f"{label} has shape {_shape(a)}; it should have shape {_shape(e)}",
    "dtype": lambda label, e, a: f"{label} has dtype {piece(a, 40)}; it should be {piece(e, 40)}",
    "device": lambda label, e, a: f"{label} is on device {piece(a, 40)}; it should be on {piece(e, 40)}",
    "requires_grad": lambda label, e, a: f"{label}.requires_grad is {a is True}; it should be {e is True}",
    "contiguous": lambda label, e, a: (
        f"{label} is {'' if a is True else 'not '}contiguous; it should {'' if e is True else 'not '}be"
    ),
}
_PROPERTY_KINDS = {"contiguous": "layout"}


def _shape(value: Any) -> str:
    return piece(tuple(value) if isinstance(value, list) else value, 60)


def _integrity(exp: Payload, act: Payload, rtol: float, atol: float, public: bool) -> Problems:
    e, a = exp["compared"], act.get("compared")
    problems: Problems = []
    for name, expected_index in (_get(e, "inputs_changed") or {}).items():
        actual_index = _get(a, "inputs_changed", name)
        arg = f"`{piece(name, 60)}`"
        if actual_index == "unwatched" and expected_index != "unwatched":
            problems.append(
                ("in_place", f"the judge's watch on writes to input {arg} was taken off torch's mode stack")
            )
        elif actual_index == "restored" and expected_index != "restored":
            writes = _get(act, "seen", "changes", name, "writes")
            how = (
                f"in place ({piece(writes, 20)} in-place writes)"
                if isinstance(writes, int) and writes > 0
                else "through another tensor sharing its memory (such as `.data`)"
            )
            problems.append(
                (
                    "in_place",
                    f"your function wrote to input {arg} {how} and then put its values back"
                    + ("" if expected_index is None else "; it should be updated in place"),
                )
            )
        elif expected_index is None and actual_index is not None:
            change = _get(act, "seen", "changes", name) or {}
            was = _get(change, "before")
            now = _get(change, "after")
            problems.append(
                (
                    "in_place",
                    f"your function modified input {arg} in place: first change at index "
                    f"{_index(actual_index)} ({piece(was, 40)} became {piece(now, 40)})",
                )
            )
        elif expected_index is not None and actual_index is None:
            problems.append(
                ("in_place", f"input {arg} should be updated in place, but it was left unchanged")
            )
        elif expected_index != actual_index:
            problems.append(
                (
                    "in_place",
                    f"input {arg} was changed in the wrong place (first change at {_index(actual_index)})",
                )
            )
    for name, expected_shared in (_get(e, "shares_storage") or {}).items():
        actual_shared = _get(a, "shares_storage", name)
        arg = f"`{piece(name, 60)}`"
        if expected_shared is True and actual_shared is not True:
            problems.append(
                ("storage", f"the output should be a view of {arg} (share its storage), but it is a copy")
            )
        elif expected_shared is False and actual_shared is not False:
            problems.append(
                ("storage", f"the output shares storage with {arg} (a view); it should be a new tensor")
            )
    for label, props in (_get(e, "properties") or {}).items():
        for prop, expected_prop in (props or {}).items():
            actual_prop = _get(a, "properties", label, prop)
            if actual_prop != expected_prop and prop in _PROPERTY_WORDS:
                kind = _PROPERTY_KINDS.get(prop, prop)
                problems.append((kind, _PROPERTY_WORDS[prop](piece(label, 60), expected_prop, actual_prop)))
    if not problems and "output" in e:
        kind = _value_kind(e["output"], _get(a, "output"), rtol, atol)
        detail = _detail(e["output"], _get(a, "output"), rtol, atol, public)
        problems.append((kind, f"the output's values are wrong{detail}"))
    return problems or [("values", "the result differs from the expected one")]


def _sample_kind(expected: Any, actual: Any, rtol: float, atol: float) -> str:
    if isinstance(_get(actual, "raised"), str):
        return "exception"
    return _value_kind(expected, actual, rtol, atol)


def family_choice(
    exp: Payload, act: Payload, rtol: float, atol: float
) -> tuple[dict[int, str], str, int] | None:
    """The failing samples (index -> failure kind), the kind shown and the counterexample's index.

    The counterexample shows the failure most inputs show, on the smallest input that is not empty
    unless only empty inputs fail (then emptiness is the cause)."""
    expected_outputs = _get(exp, "compared", "outputs") or []
    actual_outputs = _get(act, "compared", "outputs")
    samples = _get(exp, "seen", "samples") or []  # the reference's run describes the inputs
    if not isinstance(actual_outputs, list) or len(actual_outputs) != len(expected_outputs):
        return None
    failing = {
        i: _sample_kind(x, y, rtol, atol)
        for i, (x, y) in enumerate(zip(expected_outputs, actual_outputs, strict=True))
        if compare.compare(x, y, rtol, atol)
    }
    if not failing:
        return None
    size = {}
    for i in failing:
        given = _get(samples, i, "size")
        size[i] = given if isinstance(given, int) and not isinstance(given, bool) else 1 << 62
    shaped = [i for i in failing if size[i] > 0 and _get(samples, i, "empty") is not True] or list(failing)
    kinds = [failing[i] for i in shaped]
    kind = max(
        dict.fromkeys(kinds),
        key=lambda k: (kinds.count(k), -min(size[i] for i in shaped if failing[i] == k)),
    )
    smallest = min((i for i in shaped if failing[i] == kind), key=lambda i: (size[i], i))
    return failing, kind, smallest


def _family(exp: Payload, act: Payload, rtol: float, atol: float, public: bool) -> Problems:
    return family_words(exp, act, family_choice(exp, act, rtol, atol), rtol, atol, public)


def family_words(
    exp: Payload,
    act: Payload,
    choice: tuple[dict[int, str], str, int] | None,
    rtol: float,
    atol: float,
    public: bool,
) -> Problems:
    expected_outputs = _get(exp, "compared", "outputs") or []
    actual_outputs = _get(act, "compared", "outputs")
    if not isinstance(actual_outputs, list) or len(actual_outputs) != len(expected_outputs):
        return [("type", "the generated inputs did not all produce an output")]
    if choice is None:
        return [("values", "the outputs differ from the expected ones")]
    failing, kind, smallest = choice
    sample = _get(exp, "seen", "samples", smallest) or {}
    inputs = ", ".join(piece(d, 200) for d in (_get(sample, "inputs") or []))
    mine = actual_outputs[smallest]
    raised = _get(mine, "raised")
    yours = (
        f"your code raised {piece(raised, 300)}" if isinstance(raised, str) else f"your output: {piece(mine)}"
    )
    # A hidden case shows the learner's own output on the input; with the error beside it, the
    # expected value could be worked out: the difference is shown for public cases only.
    shown = public and not isinstance(raised, str)
    detail = _detail(expected_outputs[smallest], mine, rtol, atol, public) if shown else ""
    return [
        (
            kind,
            f"wrong on {len(failing)} of {len(expected_outputs)} generated inputs; the smallest failing one "
            f"({piece(_get(sample, 'label') or 'input', 60)}) is {inputs or '?'}, and {yours}{detail}",
        )
    ]


def counterexample(exp: Payload, choice: tuple[dict[int, str], str, int] | None) -> str | None:
    """The exact input text (``runner.format.inputs``' format) of the generated input a failure
    shows, when the reference's run wrote one: what "Try this input" and ``torchdrill run --input``
    take. From the reference's run only, so the learner's code cannot choose it."""
    given = _get(exp, "seen", "samples", choice[2], "input") if choice else None
    if not isinstance(given, str) or len(given) > MAX_TEXT:
        return None
    try:  # checked as any input is, then written as a learner reads it (numbers in their dtype's precision)
        return input_text(check_arguments(json.loads(given)))
    except (ValueError, RecursionError):  # InputError and JSON errors: no input offered
        return None


def _optimizer(exp: Payload, act: Payload, rtol: float, atol: float, public: bool) -> Problems:
    e, a = exp["compared"], act.get("compared")
    problems: Problems = []
    for name, expected_index in (_get(e, "without_grad") or {}).items():
        actual_index = _get(a, "without_grad", name)
        if expected_index is None and actual_index is not None:
            problems.append(
                (
                    "optimizer",
                    f"parameter `{piece(name, 60)}` has no gradient (its .grad is None) but step() "
                    f"changed it at index {_index(actual_index)}; a parameter without a gradient must "
                    "be left untouched",
                )
            )
    expected_mutated = _get(e, "mutated") or []
    unexpected = [item for item in (_get(a, "mutated") or [])[:50] if item not in expected_mutated]
    if unexpected:
        things = list(dict.fromkeys(piece(_get(item, "what"), 80) for item in unexpected))
        more = f" and {len(things) - 3} more" if len(things) > 3 else ""
        problems.append(
            (
                "optimizer",
                f"step() modified {', '.join(things[:3])}{more} in place (first at step "
                f"{_num(_get(unexpected[0], 'step'))}); step() may change only the parameters and the "
                "optimizer's state",
            )
        )
    if not problems:
        deviation = _get(act, "seen", "deviation")
        against = piece(_get(exp, "seen", "against") or "the reference update", 120)
        if isinstance(deviation, dict):
            problems.append(
                (
                    "values",
                    f"after step {_num(_get(deviation, 'step'))}, parameter "
                    f"`{piece(_get(deviation, 'param'), 60)}` differs from {against}: max abs error "
                    f"{_num(_get(deviation, 'max_abs_error'))} at index {_index(_get(deviation, 'index'))}",
                )
            )
        else:
            kind = _value_kind(_get(e, "trajectory"), _get(a, "trajectory"), rtol, atol)
            detail = _detail(_get(e, "trajectory"), _get(a, "trajectory"), rtol, atol, public)
            problems.append((kind, f"the parameters after each step differ from {against}{detail}"))
    return problems


def generic(exp: Payload, act: Payload, rtol: float, atol: float, public: bool) -> Problems:
    kind = _value_kind(exp.get("compared"), act.get("compared"), rtol, atol)
    return [
        (
            kind,
            "the result differs from the expected one"
            + _detail(exp.get("compared"), act.get("compared"), rtol, atol, public),
        )
    ]


COMPOSERS: dict[str, Callable[[Payload, Payload, float, float, bool], Problems]] = {
    "gradients": _gradients,
    "integrity": _integrity,
    "family": _family,
    "optimizer": _optimizer,
}
