"""``nn.Module``'s hook registration methods held in slots (``runner.testing.method_slots``), in a forked
child prepared as the zygote is (read-only classes, watched classes, the guard sealed around a key slot):
the problem's tests and ``observe_hooks`` replace them per case and put them back without moving any
watched class's version tag, and what they put there is what every spelling reads and calls. The real
sandbox's side: ``tests/runner/redteam/test_read_only_classes.py`` and ``test_hook_table_cheats.py``."""

from __future__ import annotations

import json
import os
from typing import Any

from runner.judging import observations
from runner.testing import guard
from tests.runner.processes import in_fork

KEY = bytes(range(32))
EVENTS_FD = 200


def _zygote_then_spare(spare: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``spare(tags)`` in a spare of a zygote-like child, with the job's guard in force: (what it
    returned, its records)."""

    def zygote(_fd: int) -> Any:
        from runner.testing import class_versions, frozen_classes

        frozen_classes.prepare()
        slotted = guard.KeySlotGuard(len(KEY), EVENTS_FD)
        before = list(class_versions.tags())

        def run(fd: int) -> Any:
            os.dup2(fd, EVENTS_FD)
            assert guard.PendingGuard(KEY, EVENTS_FD, slotted).install() is not None
            return spare(before)

        return in_fork(run)

    result, _ = in_fork(zygote)
    return result[0], result[1]


def test_the_tests_replace_a_hook_method_without_moving_a_tag_and_every_spelling_sees_it() -> None:
    def spare(before: list[int]) -> dict[str, Any]:
        import torch.nn as nn

        from runner.testing import class_versions, frozen_modules, observe_hooks, set_class_attribute

        frozen_modules.tests_slot()[0] = globals()  # this module stands for the problem's tests.py
        wrapper = nn.Module.register_forward_hook
        calls: list[str] = []

        def spy(module: Any, hook: Any, *args: Any, **kwargs: Any) -> Any:
            calls.append(type(module).__name__)
            return wrapper(module, hook, *args, **kwargs)

        linear = nn.Linear(2, 2)
        set_class_attribute(nn.Module, "register_forward_hook", spy)
        seen = {
            "class": nn.Module.register_forward_hook is spy,
            "subclass": nn.Linear.register_forward_hook is spy,
            "getattr": getattr(nn.Module, "register_forward_hook") is spy,  # noqa: B009
            "bound": linear.register_forward_hook.__func__ is spy,
        }
        linear.register_forward_hook(lambda *_: None).remove()
        set_class_attribute(nn.Module, "register_forward_hook", wrapper)
        with observe_hooks() as log:
            linear.register_forward_hook(lambda *_: None).remove()
        return seen | {
            "restored": nn.Module.register_forward_hook is wrapper,
            "spy_calls": calls,
            "observed": log.kinds(),
            "unmoved": list(class_versions.tags()) == before,
        }

    seen, records = _zygote_then_spare(spare)
    assert seen == {
        "class": True,
        "subclass": True,
        "getattr": True,
        "bound": True,
        "restored": True,
        "spy_calls": ["Linear"],
        "observed": ["forward_hook"],
        "unmoved": True,  # fails if the slots silently fall back to writing nn.Module
    }
    # the guard's wrapper, under the spy and under observe_hooks', still sent each registration
    events = observations.verify(records, KEY)
    assert events.tampered == "" and events.refused == []
    kinds = [json.loads(record["body"])[1] for record in records]
    assert kinds == [
        "hook_registered",  # through the spy
        "hook_removed",
        "observe_hooks_begin",
        "hook_registered",  # through observe_hooks' wrapper
        "hook_removed",
        "hook_state",
        "observe_hooks_end",
    ]


def test_the_learner_cannot_write_a_slot() -> None:
    def spare(before: list[int]) -> dict[str, Any]:
        import torch.nn as nn

        from runner.testing import set_class_attribute

        class Lying:
            __slots__ = ()

            def __get__(self, instance: Any, owner: Any = None) -> Any:
                return print

        def swap_class() -> None:
            nn.Module.__dict__["register_forward_hook"].__class__ = Lying

        outcomes = {}
        attempts = {
            "the descriptor's own class swapped": swap_class,
            "the tests' writer": lambda: set_class_attribute(nn.Module, "register_forward_hook", print),
            "the class": lambda: setattr(nn.Module, "register_forward_hook", print),
            "the descriptor's class": lambda: setattr(
                type(nn.Module.__dict__["register_forward_hook"]), "__get__", print
            ),
        }
        for name, attempt in attempts.items():
            try:
                attempt()
                outcomes[name] = "written"
            except TypeError as error:
                outcomes[name] = type(error).__name__
        return outcomes | {"wrapper_kept": nn.Module.register_forward_hook.__qualname__}

    # this test's functions are neither tests.py's nor runner.testing's: the writer refuses them too
    seen, _ = _zygote_then_spare(spare)
    assert seen == {
        "the descriptor's own class swapped": "TypeError",  # immutable: no __class__ assignment
        "the tests' writer": "TypeError",
        "the class": "TypeError",
        "the descriptor's class": "TypeError",
        "wrapper_kept": "_register_template",
    }
