"""The vocabulary instructors use in a problem's ``tests.py``.

A test case is a function of one argument, the learner's module, that returns a
JSON-like value or tensors. It runs inside the sandbox, once against the reference
solution (to compute the expected value, outside any learner's reach) and once
against the learner's code; the two results are compared outside the sandbox.

Helpers make tests strong for the zero-argument functions of the seed problems:

* :func:`shifted_seed` re-maps every ``torch.manual_seed(n)`` the learner makes
  to ``torch.manual_seed(n + offset)``, so an answer copied from the statement
  (computed for seed 42) fails on a case run with another seed.
* :func:`observe_hooks` records every hook registered on an ``nn.Module`` and
  whether its handle was removed, so "use register_full_backward_hook" and "remove
  the hook afterwards" are checked, not only the returned numbers. In the sandbox the
  host judges the block from events it can trust (``runner.testing.hook_events``), whatever
  the returned summary says.
* :func:`forbid_ops`, :func:`require_ops`, :func:`allow_ops`, :func:`assert_vectorised` check
  which operations the code calls (:func:`op_rules_for_every_case`: in every case of a problem)
  and that its work does not grow like a Python loop (``runner.testing.ops``), also judged on
  the host.
* :func:`observe_peak_memory` measures the peak bytes the enclosed code's operations hold at once
  (``backward()``'s recomputations included), to compare with a reference run as a ratio.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from runner.testing import guard, sealed
from runner.testing.frozen_classes import set_class_attribute as set_class_attribute

# Checks of *how* the code works, judged on the host from events (runner/testing/op_checks.py).
from runner.testing.op_checks import allow_ops as allow_ops
from runner.testing.op_checks import assert_vectorised as assert_vectorised
from runner.testing.op_checks import forbid_ops as forbid_ops
from runner.testing.op_checks import op_rules_for_every_case as op_rules_for_every_case
from runner.testing.op_checks import require_ops as require_ops
from runner.testing.op_checks import reset_every_case_rules, with_every_case_rules

DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-4

CaseFunction = Callable[[Any], Any]


@dataclass(frozen=True)
class CaseSpec:
    """A declared test case: its function and how its value is compared."""

    name: str
    func: CaseFunction
    public: bool = False
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    order: int = 0
    # The id of the statement's rule this case enforces (its ``## Rules`` section), or "".
    rule: str = ""
    # The case's returned value is the rule's evidence: any difference in it breaks the rule.
    rule_by_value: bool = False


_REGISTRY: list[CaseSpec] = []


def case(
    func: CaseFunction | None = None,
    *,
    public: bool = False,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    name: str | None = None,
    rule: str = "",
    rule_by_value: bool = False,
) -> Any:
    """Declare a test case. Usable as ``@case`` or ``@case(public=True, atol=1e-3)``.

    ``rule`` names the statement's rule the case enforces (``@case(rule="grad-identity")``): when the
    case fails, the verdict's message carries the rule's id and sentence, and ``problems validate``
    requires every rule to have such a case and a mutant that one of them kills. A failure names
    the rule when what broke is the rule's check (observed operations or hooks, a check's own
    property, a count or flag in the value); a case whose returned values themselves are the rule's
    evidence (finite results for extreme inputs, the optimizer's groups) says so with
    ``rule_by_value=True``: any difference in them then breaks the rule. Otherwise wrong values
    are named as wrong values (docs/authoring.md, "Failure words").
    """

    def register(f: CaseFunction) -> CaseFunction:
        if rtol < 0 or atol < 0:
            raise ValueError(f"case {f.__name__}: tolerances must be >= 0")
        if rule_by_value and not rule:
            raise ValueError(f"case {f.__name__}: rule_by_value=True needs the rule it is evidence of")
        spec = CaseSpec(
            name=name or f.__name__,
            func=f,
            public=public,
            rtol=float(rtol),
            atol=float(atol),
            order=len(_REGISTRY),
            rule=str(rule),
            rule_by_value=bool(rule_by_value),
        )
        if any(existing.name == spec.name for existing in _REGISTRY):
            raise ValueError(f"two test cases are named {spec.name!r}")
        _REGISTRY.append(spec)
        return f

    if func is not None:
        return register(func)
    return register


def collected_cases() -> list[CaseSpec]:
    """The cases declared since the last :func:`reset_registry`, in file order, each run inside
    the problem-wide op rules (:func:`op_rules_for_every_case`) when ``tests.py`` declares any."""
    return [dataclasses.replace(spec, func=with_every_case_rules(spec.func)) for spec in _REGISTRY]


def reset_registry() -> None:
    _REGISTRY.clear()
    reset_every_case_rules()


def forget_cases() -> None:
    """Forget the cases declared so far and keep the problem-wide op rules
    (:func:`op_rules_for_every_case`): custom input's generated ``tests.py`` loads the problem's
    own for its rules, then declares its one case (``runner.format.custom``)."""
    _REGISTRY.clear()


@contextlib.contextmanager
def shifted_seed(offset: int) -> Iterator[None]:
    """Run the enclosed code with every ``torch.manual_seed(n)`` turned into ``n + offset``.

    The global RNG is also seeded with ``offset`` on entry, so code that never seeds
    still sees numbers that differ from the statement's.
    """
    import torch
    import torch.random

    original = torch.random.manual_seed

    def manual_seed(seed: int) -> Any:
        return original(int(seed) + offset)

    # Through the base class's setter: torch's modules are read-only to judged code (frozen_modules).
    sealed.set_attribute(torch, "manual_seed", manual_seed)
    sealed.set_attribute(torch.random, "manual_seed", manual_seed)
    original(offset)
    try:
        yield
    finally:
        sealed.set_attribute(torch, "manual_seed", original)
        sealed.set_attribute(torch.random, "manual_seed", original)


_HOOK_METHODS = (
    "register_forward_hook",
    "register_forward_pre_hook",
    "register_full_backward_hook",
    "register_full_backward_pre_hook",
    "register_backward_hook",
)


@dataclass
class HookRecord:
    kind: str
    module: str
    removed: bool = False


@dataclass
class HookLog:
    """What :func:`observe_hooks` saw. ``summary()`` is a JSON-like value to return."""

    records: list[HookRecord] = field(default_factory=list)
    _modules: list[Any] = field(default_factory=list)

    def kinds(self) -> list[str]:
        return [r.kind for r in self.records]

    def all_removed(self) -> bool:
        return all(r.removed for r in self.records)

    def still_attached(self) -> int:
        """Hooks still attached to any module that had one registered, by inspection."""
        total = 0
        for module in self._modules:
            for attr in (
                "_forward_hooks",
                "_forward_pre_hooks",
                "_backward_hooks",
                "_backward_pre_hooks",
            ):
                total += len(getattr(module, attr, {}) or {})
        return total

    def summary(self) -> dict[str, Any]:
        return {
            "registered": [{"kind": r.kind, "module": r.module} for r in self.records],
            "all_removed": self.all_removed(),
            "still_attached": self.still_attached(),
        }


@contextlib.contextmanager
def observe_hooks() -> Iterator[HookLog]:
    """Record hook registrations on every ``torch.nn.Module`` in the enclosed code."""
    import torch.nn as nn

    log = HookLog()
    originals = {name: getattr(nn.Module, name) for name in _HOOK_METHODS if hasattr(nn.Module, name)}

    def wrap(method_name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def register(module: Any, *args: Any, **kwargs: Any) -> Any:
            handle = original(module, *args, **kwargs)
            record = HookRecord(kind=method_name.removeprefix("register_"), module=type(module).__name__)
            log.records.append(record)
            if not any(m is module for m in log._modules):
                log._modules.append(module)
            original_remove = handle.remove

            def remove() -> None:
                record.removed = True
                original_remove()

            handle.remove = remove
            return handle

        return register

    # nn.Module is read-only to all but the judge and tests.py; all names in one write (in the sandbox
    # they go to the slots the zygote put there, runner.testing.method_slots; a write to the class
    # itself would move every module class's version tag: runner.testing.class_versions)
    names = tuple(originals)
    set_class_attribute(nn.Module, names, tuple(wrap(name, original) for name, original in originals.items()))
    judge = (
        guard.active()
    )  # in the sandbox, the host judges the hooks from events (runner.testing.hook_events)
    if judge is not None:
        judge.hooks.begin()
    try:
        yield log
    finally:
        if judge is not None:
            judge.hooks.end()
        set_class_attribute(nn.Module, names, tuple(originals.values()))


# Checks that test how a solution works (runner/testing/checks/): each returns a value the host compares.
from runner.testing.checks.family import Sample as Sample  # noqa: E402
from runner.testing.checks.family import check_family as check_family  # noqa: E402
from runner.testing.checks.family import samples as samples  # noqa: E402
from runner.testing.checks.family import tensor_samples as tensor_samples  # noqa: E402
from runner.testing.checks.flags import requires_grad_writes as requires_grad_writes  # noqa: E402
from runner.testing.checks.gradients import check_gradients as check_gradients  # noqa: E402
from runner.testing.checks.integrity import check_call as check_call  # noqa: E402
from runner.testing.checks.integrity import writes_during as writes_during  # noqa: E402
from runner.testing.checks.optim import check_optimizer as check_optimizer  # noqa: E402
from runner.testing.checks.random_draws import global_rng_draws as global_rng_draws  # noqa: E402

# How much memory code holds at once (runner/testing/peak_memory.py): a value the host compares.
from runner.testing.peak_memory import observe_peak_memory as observe_peak_memory  # noqa: E402
