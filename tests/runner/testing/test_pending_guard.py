"""A job's guard: sealed once, by the zygote, around a key slot (runner.testing.guard.KeySlotGuard) and
keyed and put in force by each spare (runner.testing.guard.PendingGuard); sealed at install outside the
zygote.

It must be the guard that comes into force when nothing changed in between, a guard sealed
afresh when the problem's ``tests.py`` replaced what the observers wrap, and the key must be
out of the holders once the guard is in force. Installing a guard cannot be undone (an audit
hook stays for the process's life), so each of these runs in a forked child; the real
sandbox's side is in ``test_integrity.py`` and ``test_adversarial.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from runner.judging import observations
from runner.testing import guard, sealed
from tests.runner.processes import in_fork


def in_child(run: Callable[[int], dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(what ``run(events_fd)`` returned, the records it wrote on ``events_fd``), from a forked child."""
    result, records = in_fork(run)
    return dict(result), records


def counting_seals() -> list[int]:
    """Count guard.seal calls from now on (in the child only)."""
    calls: list[int] = []
    original = guard.seal

    def counted(key: bytes, fd: int) -> guard.Sealed:
        calls.append(1)
        return original(key, fd)

    guard.seal = counted
    return calls


def register_and_remove_a_hook() -> None:
    import torch.nn as nn

    nn.Linear(2, 2).register_forward_hook(lambda *_: None).remove()


KEY = bytes(range(32))


def installed(pending: guard.PendingGuard, before_install: Callable[[], Any] | None = None) -> dict[str, Any]:
    """Let ``before_install`` run as ``tests.py`` would, install, register and remove a hook: what
    the install sealed and put in force."""
    import torch.nn as nn

    if before_install is not None:
        before_install()
    seals = counting_seals()
    judge = pending.install()
    assert judge is not None
    register_and_remove_a_hook()
    return {
        "seals_at_install": len(seals),
        "wrapper_sealed": sealed.is_sealed_function(nn.Module.register_forward_hook),
        "active": guard.active() is judge,
    }


OTHER_KEY = bytes(range(32, 64))
EVENTS_FD = 200  # a fixed descriptor for the events, as fd 3 is in a spare


def keyed_spare(
    slotted: guard.KeySlotGuard, key: bytes, before_install: Callable[[], Any] | None = None
) -> Any:
    """A spare of a zygote-like parent: its copy of ``slotted`` keyed with ``key`` and put in
    force, a hook registered and removed; (what it saw, its records)."""

    def run(fd: int) -> dict[str, Any]:
        os.dup2(fd, EVENTS_FD)
        pending = guard.PendingGuard(key, EVENTS_FD, slotted)
        return installed(pending, before_install) | {
            "held_after": [
                type(v).__name__
                for holder in (pending, slotted)
                for v in vars(holder).values()
                if v and not isinstance(v, int)
            ],
            "second_keying": slotted.put_in_force(key),
        }

    return in_child(run)


def in_zygote(run: Callable[[guard.KeySlotGuard], Any]) -> Any:
    """``run(slotted)`` in a forked child that sealed a guard around a key slot, as the zygote
    does before it forks its spares (so this test process seals nothing)."""
    result, _ = in_fork(lambda _fd: run(guard.KeySlotGuard(len(KEY), EVENTS_FD)))
    return result


def test_a_guard_sealed_once_by_the_zygote_is_keyed_by_each_spare_alone() -> None:
    def two_spares(slotted: guard.KeySlotGuard) -> Any:
        return [keyed_spare(slotted, KEY), keyed_spare(slotted, OTHER_KEY)]

    (seen_1, records_1), (seen_2, records_2) = in_zygote(two_spares)
    for seen in (seen_1, seen_2):
        # nothing sealed at install, the wrappers in force, and neither holder keeps the key,
        # the slot or the sealed guard: it comes into force once
        assert seen == {
            "seals_at_install": 0,
            "wrapper_sealed": True,
            "active": True,
            "held_after": [],
            "second_keying": None,
        }
    # each spare's events carry its own key: its copy of the slot is its own
    assert [r["type"] for r in records_1] == ["event", "event"]
    assert observations.verify(records_1, KEY).tampered == ""
    assert observations.verify(records_2, OTHER_KEY).tampered == ""
    assert observations.verify(records_1, OTHER_KEY).tampered != ""
    assert observations.verify(records_2, KEY).tampered != ""


def test_tests_that_replace_a_wrapped_method_after_the_zygote_sealed_get_a_fresh_guard() -> None:
    def replace() -> None:
        import torch.nn as nn

        original = nn.Module.register_forward_hook

        def instructors(module: Any, *args: Any, **kwargs: Any) -> Any:
            return original(module, *args, **kwargs)

        nn.Module.register_forward_hook = instructors  # type: ignore[method-assign,assignment]

    def spare(slotted: guard.KeySlotGuard) -> Any:
        return keyed_spare(slotted, KEY, before_install=replace)

    seen, records = in_zygote(spare)
    assert seen["seals_at_install"] == 1  # the slotted guard refused to come into force
    assert seen["wrapper_sealed"] and seen["held_after"] == []
    assert observations.verify(records, KEY).tampered == ""
    assert len(records) == 2


def test_outside_the_zygote_the_guard_is_sealed_at_install() -> None:
    def run(fd: int) -> dict[str, Any]:
        return installed(guard.PendingGuard(KEY, fd))

    seen, records = in_child(run)
    assert seen == {"seals_at_install": 1, "wrapper_sealed": True, "active": True}
    events = observations.verify(records, KEY)
    assert events.tampered == "" and events.refused == []
    assert [r["type"] for r in records] == ["event", "event"]  # registered, removed (outside any case)


def test_tests_that_replace_a_wrapped_method_get_a_guard_sealed_around_theirs() -> None:
    # tests.py loads before the install: what it puts in place is what the guard must wrap.
    def run(fd: int) -> dict[str, Any]:
        import torch.nn as nn

        pending = guard.PendingGuard(KEY, fd)
        original = nn.Module.register_forward_hook
        calls: list[int] = []

        def instructors(module: Any, *args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return original(module, *args, **kwargs)

        nn.Module.register_forward_hook = instructors  # type: ignore[method-assign,assignment]
        seals = counting_seals()
        assert pending.install() is not None
        register_and_remove_a_hook()
        return {"seals_at_install": len(seals), "instructors_calls": len(calls)}

    seen, records = in_child(run)
    assert seen == {"seals_at_install": 1, "instructors_calls": 1}
    assert observations.verify(records, KEY).tampered == ""
    assert len(records) == 2  # the judge's wrapper, around the instructor's, still sent its events


def test_the_holder_lets_go_of_the_key_once_the_guard_is_in_force() -> None:
    def run(fd: int) -> dict[str, Any]:
        pending = guard.PendingGuard(KEY, fd)
        held_before = any(value == KEY for value in vars(pending).values())
        pending.install()
        return {
            "held_before": held_before,
            "held_after": [repr(v)[:40] for v in vars(pending).values() if isinstance(v, bytes) and v],
            "second_install": pending.install() is None,
        }

    seen, _ = in_child(run)
    assert seen == {"held_before": True, "held_after": [], "second_install": True}


def test_patches_go_in_all_together_or_not_at_all() -> None:
    class Owner:
        a = "a0"
        b = "b0"

    patches = [sealed.Patch(Owner, "a", "a0", "a1"), sealed.Patch(Owner, "b", "b0", "b1")]
    Owner.b = "changed"
    assert not sealed.apply_patches(patches, [(Owner, "a", Owner.a), (Owner, "b", Owner.b)])
    assert (Owner.a, Owner.b) == ("a0", "changed")
    assert not sealed.apply_patches(patches, [(Owner, "a", Owner.a)])  # a target came or went
    Owner.b = "b0"
    assert sealed.apply_patches(patches, [(Owner, "a", Owner.a), (Owner, "b", Owner.b)])
    assert (Owner.a, Owner.b) == ("a1", "b1")


def test_a_job_without_a_guard_lets_go_of_the_key_too() -> None:
    pending = guard.PendingGuard(KEY, 1)
    pending.forget()
    assert [v for v in vars(pending).values() if isinstance(v, bytes) and v] == []
    assert pending.install() is None  # nothing left to put in force


def test_a_target_that_holds_its_replacement_already_is_not_written_again() -> None:
    writes: list[str] = []

    class Counting(type):
        def __setattr__(cls, name: str, value: Any) -> None:
            writes.append(name)
            super().__setattr__(name, value)

    class Owner(metaclass=Counting):
        a = "a0"
        b = "b1"  # put in place ahead (the zygote's hook wrappers)

    patches = [sealed.Patch(Owner, "a", "a0", "a1"), sealed.Patch(Owner, "b", "b0", "b1")]
    assert sealed.apply_patches(patches, [(Owner, "a", Owner.a), (Owner, "b", Owner.b)])
    assert (Owner.a, Owner.b, writes) == ("a1", "b1", ["a"])


def test_the_zygotes_hook_wrappers_are_in_place_and_silent_until_a_spares_guard_is_in_force() -> None:
    # The zygote puts its guard's hook wrappers on nn.Module once, turned off: the zygote's own
    # registrations, a spare's before its guard (tests.py loading) and a job with no guard send nothing.
    def silent_spare(slotted: guard.KeySlotGuard, install: bool) -> Any:
        def run(fd: int) -> dict[str, Any]:
            import torch.nn as nn

            os.dup2(fd, EVENTS_FD)
            pending = guard.PendingGuard(KEY, EVENTS_FD, slotted)
            register_and_remove_a_hook()  # before the guard: as tests.py would at import
            if install:
                assert pending.install() is not None
            else:
                pending.forget()
            register_and_remove_a_hook()
            return {"wrapper_sealed": sealed.is_sealed_function(nn.Module.register_forward_hook)}

        return in_child(run)

    def zygote(fd: int) -> Any:
        import torch.nn as nn

        os.dup2(fd, EVENTS_FD)
        slotted = guard.KeySlotGuard(len(KEY), EVENTS_FD)
        register_and_remove_a_hook()
        return {
            "placed": sealed.is_sealed_function(nn.Module.register_forward_hook),
            "no_guard": silent_spare(slotted, install=False),
            "guarded": silent_spare(slotted, install=True),
        }

    seen, zygote_records = in_fork(zygote)
    assert zygote_records == []
    assert seen["placed"]
    assert seen["no_guard"] == [{"wrapper_sealed": True}, []]
    guarded, records = seen["guarded"]
    assert guarded == {"wrapper_sealed": True}
    # the registration and removal after the install only, verified under the spare's key
    assert [r["type"] for r in records] == ["event", "event"]
    assert observations.verify(records, KEY).tampered == ""


def test_a_spares_guard_writes_no_watched_class_and_a_later_write_is_still_reported() -> None:
    # The zygote takes the watched classes' version tags after placing the hook wrappers, so putting
    # a job's guard in force moves none of them; a job's write to one is reported at the case's end.
    def spare(slotted: guard.KeySlotGuard, before: list[int]) -> Any:
        def run(fd: int) -> dict[str, Any]:
            import torch.nn as nn

            from runner.testing import class_versions

            os.dup2(fd, EVENTS_FD)
            judge = guard.PendingGuard(KEY, EVENTS_FD, slotted).install()
            assert judge is not None
            unmoved = list(class_versions.tags()) == before
            judge.begin_case("c")
            nn.Linear.extra_repr = nn.Linear.extra_repr  # put back as it was: the tag moved all the same
            judge.end_case("c")
            return {"unmoved": unmoved}

        return in_child(run)

    def zygote(_fd: int) -> Any:
        from runner.testing import class_versions

        class_versions.prepare()
        slotted = guard.KeySlotGuard(len(KEY), EVENTS_FD)
        before = list(class_versions.tags())
        return {"watched": len(before), "spare": spare(slotted, before)}

    seen, _ = in_fork(zygote)
    assert seen["watched"] > 500
    result, records = seen["spare"]
    assert result == {"unmoved": True}
    tampered = [e[1] for e in observations.verify(records, KEY).cases["c"].events if e[0] == "tampered"]
    assert tampered and "torch.nn.modules.linear.Linear was changed" in tampered[0], tampered
