"""Checks of the operations code calls, as ``tests.py`` writes them (re-exported by
``runner.testing``): :func:`forbid_ops`, :func:`require_ops`, :func:`allow_ops`, :func:`assert_vectorised`,
and :func:`op_rules_for_every_case`, which holds op rules in every case of a problem.

Each one tells this job's sealed observer (``runner.testing.ops``, through the guard in force) what
to watch; the host judges the case from the events it sends (``runner.judging.observations``).
Outside the sandbox (no guard) nothing is observed and the code simply runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from runner.records.allowed_ops import canonical
from runner.testing import guard
from runner.testing.op_names import interceptable, kernel_routes
from runner.testing.ops import DEFAULT_SIZES, OpsObserver


def _observer() -> OpsObserver | None:
    active = guard.active()
    return active.ops if active is not None else None


@contextlib.contextmanager
def forbid_ops(rules: Mapping[str, str]) -> Iterator[None]:
    """Fail the case if the enclosed code calls one of ``rules`` (op name → the statement's
    sentence). Names: a public API name (``torch.nn.functional.layer_norm``, ``torch.Tensor.sum``)
    or an aten operator (``aten.native_layer_norm``), which every route to it reaches."""
    with _watching(dict(rules), {}):
        yield


@contextlib.contextmanager
def require_ops(rules: Mapping[str, str]) -> Iterator[None]:
    """Fail the case unless the enclosed code calls each of ``rules`` (op name → the sentence)."""
    with _watching({}, dict(rules)):
        yield


@contextlib.contextmanager
def allow_ops(rule: str, extra: tuple[str, ...] | list[str] = ()) -> Iterator[None]:
    """Fail the case if the enclosed code dispatches an aten operator the reference did not
    dispatch in the same block, other than views and tensor creation
    (``runner.records.allowed_ops.ALWAYS_ALLOWED``) and ``extra`` (``aten.<name>``: the accepted
    alternatives the reference does not use). ``rule`` is the statement's sentence. Every route
    to an operator reaches the dispatch level where this looks, so it holds for methods,
    ``torch.nn.functional``, ``out=`` and in-place variants, private aten names, fused kernels and
    ``torch.func`` alike; the host decides, from the reference's own run."""
    with _allowing(rule, extra, ""):
        yield


@contextlib.contextmanager
def _allowing(rule: str, extra: tuple[str, ...] | list[str], rule_id: str) -> Iterator[None]:
    """:func:`allow_ops`, and the rule id of a problem-wide rule ("" for a case's own)."""
    names = tuple(extra)
    for op in names:
        if not op.startswith("aten.") or op.count(".") != 1:
            raise ValueError(f"allow_ops: {op!r}: name an extra operator as aten.<name> (an overload packet)")
    observer = _observer()
    if observer is None:  # outside the sandbox (no guard): nothing is observed
        yield
        return
    # Every extra name must be a real operator (problems validate runs the reference through here).
    allowed_extra = tuple(sorted({canonical(interceptable(op)) for op in names}))
    observer.enter({}, {}, rule, allowed_extra, rule_id)
    try:
        yield
    finally:
        observer.leave()


_EveryCase = tuple[str, dict[str, str], dict[str, str], tuple[str, tuple[str, ...]] | None]
_EVERY_CASE: list[_EveryCase] = []


def op_rules_for_every_case(
    rule: str,
    *,
    forbid: Mapping[str, str] | None = None,
    require: Mapping[str, str] | None = None,
    allow: str = "",
    allow_extra: tuple[str, ...] | list[str] = (),
) -> None:
    """Declare op rules for the whole problem, at the top level of ``tests.py``: every case then
    runs inside ``forbid_ops(forbid)``, ``require_ops(require)`` and ``allow_ops(allow,
    allow_extra)`` (those given), so a rule holds in every case, not only the one that names it.
    ``rule`` is the statement rule's id: a case these blocks fail is reported as breaking it,
    whatever rule the case itself checks. A problem that declares none pays nothing."""
    allow_rule = (allow, tuple(allow_extra)) if allow else None
    if not rule:
        raise ValueError("op_rules_for_every_case: name the statement's rule (its id) these enforce")
    if not (forbid or require or allow_rule):
        raise ValueError("op_rules_for_every_case: give forbid=, require= or allow=")
    _EVERY_CASE.append((rule, dict(forbid or {}), dict(require or {}), allow_rule))


def every_case_rules() -> list[_EveryCase]:
    return list(_EVERY_CASE)


def reset_every_case_rules() -> None:
    _EVERY_CASE.clear()


def with_every_case_rules(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``func`` run inside the problem-wide op rules declared so far (itself when there are none)."""
    declared = every_case_rules()
    if not declared:
        return func

    def in_rules(solution: Any) -> Any:
        with contextlib.ExitStack() as stack:
            for rule_id, forbidden, required, allow_rule in declared:
                if forbidden or required:
                    stack.enter_context(_watching(forbidden, required, rule_id))
                if allow_rule is not None:
                    stack.enter_context(_allowing(*allow_rule, rule_id))
            return func(solution)

    return in_rules


@contextlib.contextmanager
def _watching(forbidden: dict[str, str], required: dict[str, str], rule_id: str = "") -> Iterator[None]:
    for op in (*forbidden, *required):
        if not (op.startswith(("torch.", "aten.")) and op.count(".") >= 1):
            raise ValueError(f"{op!r}: name an operation as torch.<name>, torch.Tensor.<name> or aten.<name>")
    observer = _observer()
    if observer is None:  # outside the sandbox (no guard): nothing is observed
        yield
        return
    # Every name must reach something interceptable (problems validate runs the reference
    # through here, so a rule that could never fire fails validation), under the observers' name.
    forbidden = {interceptable(op): rule for op, rule in forbidden.items()}
    # ... and a forbidden name holds for every aten name of the same kernel (private, forward,
    # fused, out= and in-place variants), whatever route reaches it (runner.testing.op_names).
    for op, rule in list(forbidden.items()):
        for route in kernel_routes(op):
            forbidden.setdefault(route, rule)
    required = {interceptable(op): rule for op, rule in required.items()}
    observer.enter(forbidden, required, "", (), rule_id)
    try:
        yield
    finally:
        observer.leave()


def assert_vectorised(
    fn: Callable[[Any], Any],
    make_input: Callable[[int], Any],
    *,
    rule: str,
    sizes: tuple[int, int] = DEFAULT_SIZES,
) -> Any:
    """Count the operations ``fn(make_input(n))`` dispatches at two sizes; the host fails the case
    if the count grows with ``n`` (a Python loop over elements). Returns ``fn``'s result at the
    larger size, so the case can also return it as a value."""
    small, large = sizes
    if not 0 < small < large:
        raise ValueError("assert_vectorised: sizes must be two increasing positive sizes")
    inputs = [make_input(small), make_input(large)]  # built outside the count
    observer = _observer()
    if observer is None:
        fn(inputs[0])
        return fn(inputs[1])
    observer.declare_vectorised(rule, f"{small},{large}")
    observer.count(fn, inputs[0], str(small))
    return observer.count(fn, inputs[1], str(large))
