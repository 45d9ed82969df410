"""Checks of the operations code calls, as ``tests.py`` writes them (re-exported by
``runner.testing``): :func:`forbid_ops`, :func:`require_ops`, :func:`assert_vectorised`.

Each one tells this job's sealed observer (``runner.testing.ops``, through the guard in force) what
to watch; the host judges the case from the events it sends (``runner.judging.observations``).
Outside the sandbox (no guard) nothing is observed and the code simply runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from runner.testing import guard
from runner.testing.op_names import interceptable
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
def _watching(forbidden: dict[str, str], required: dict[str, str]) -> Iterator[None]:
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
    required = {interceptable(op): rule for op, rule in required.items()}
    observer.enter(forbidden, required)
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
