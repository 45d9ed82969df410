"""The warm-up: torch imported and exercised once in the zygote, then again step by step in each
spare while it waits for its job (at idle priority), so the job starts warm."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import socket
import sys
from collections.abc import Callable
from typing import Any

from runner.sandbox.seeding import numpy_seeder, skip_absent_accelerators, torch_seeder


def warm_up() -> dict[str, str]:
    """Import and exercise torch once, so every forked child starts warm."""
    import torch
    import torch._decomp.decompositions_for_jvp  # forward-mode AD's lazy import (forward_ad, func.jvp)
    import torch._subclasses.schema_check_mode  # gradcheck's lazy import on failure (runner/testing/checks)
    import torch.nn
    import torch.nn.functional
    import torch.optim

    import runner.sandbox.harness
    import runner.testing
    import runner.testing.frozen_modules
    import runner.testing.guard

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    runner.testing.guard.warm_up()
    skip_absent_accelerators()
    torch_seeder()
    numpy_seeder()
    exercise()
    runner.testing.guard.watch_classes()
    # Last: every module loaded so far is read-only to judged code from every job on.
    runner.testing.frozen_modules.freeze()
    return {"python": sys.version.split()[0], "torch": torch.__version__.split("+")[0]}


def exercise() -> None:
    """A tiny training step through the code paths the problems use (hooks, autograd, optim).

    The zygote runs it once to load everything; each spare runs it again, step by step, while it
    waits for a job (:func:`warm_spare`), so the copy-on-write page faults it causes are paid
    before the job, not during it.
    """
    state: dict[str, Any] = {}
    for step in EXERCISE_STEPS:
        step(state)


def _build(state: dict[str, Any]) -> None:
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    state["model"] = model
    state["handle"] = model[2].register_full_backward_hook(lambda *_: None)


def _forward(state: dict[str, Any]) -> None:
    import torch
    import torch.nn as nn

    state["loss"] = nn.functional.mse_loss(state["model"](torch.ones(1, 3)), torch.ones(1, 1))


def _backward(state: dict[str, Any]) -> None:
    state.pop("loss").backward()
    state.pop("handle").remove()


def _optimizer_step(state: dict[str, Any]) -> None:
    import torch

    torch.optim.SGD(state.pop("model").parameters(), lr=0.1, momentum=0.9).step()
    json.dumps({"warm": [1.0, 2, None]})


def _judge_paths(_state: dict[str, Any]) -> None:
    """What the harness and the problems' tests do around every case: seeds, hook windows,
    captured output, encoding a value."""
    import torch
    import torch.nn as nn

    from runner import testing
    from runner.records import values
    from runner.sandbox import harness

    with testing.shifted_seed(1), contextlib.redirect_stdout(harness.BoundedText(100)):
        torch.manual_seed(0)
        print("warm")
        with testing.observe_hooks() as log:
            layer = nn.Linear(2, 1)
            layer.register_forward_hook(lambda *_: None).remove()
            layer(torch.randn(1, 2))
    values.encode({"summary": log.summary(), "tensor": torch.randn(2, 2), "list": [1.0, 2, None, "a", True]})


_PASS_THROUGH: list[Any] = []


def _pass_through_modes() -> tuple[Any, Any]:
    """A torch function mode and a dispatch mode that only call through (classes made once)."""
    if not _PASS_THROUGH:
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        def call(_mode: Any, func: Any, _types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return func(*args, **(kwargs or {}))

        _PASS_THROUGH.append(type("WarmFunctions", (TorchFunctionMode,), {"__torch_function__": call}))
        _PASS_THROUGH.append(type("WarmDispatch", (TorchDispatchMode,), {"__torch_dispatch__": call}))
    return _PASS_THROUGH[0], _PASS_THROUGH[1]


def _under_modes(_state: dict[str, Any]) -> None:
    """A forward and backward pass under a function mode and a dispatch mode, as the guard's
    operation checks run the learner's code (``runner.testing.ops``)."""
    import torch
    import torch.nn as nn

    functions, dispatch = _pass_through_modes()
    with functions(), dispatch():
        model = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
        model(torch.ones(1, 3)).sum().backward()


# A job that comes while a spare warms up waits for the step under way (warm_spare): no step
# is long (in a fork of a warm zygote, building the model and its first forward pass took
# ~1.5 ms each, ~4.3 ms as one step).
EXERCISE_STEPS: tuple[Callable[[dict[str, Any]], None], ...] = (
    _build,
    _forward,
    _backward,
    _optimizer_step,
    _judge_paths,
    _under_modes,
)
IDLE_NICE = 19  # the speculative warm-up's nice value (see warm_spare)


class GroupPriority:
    """The spare's own job group's CPU priority, through a file it opened before the cgroup
    tree was unmounted (``runner.sandbox.cgroups.JobCgroup.idle_setting``); closed before the job."""

    def __init__(self, fd: int, idle: str, normal: str) -> None:
        self.fd, self._idle, self._normal = fd, idle.encode(), normal.encode()

    def idle(self) -> None:
        os.pwrite(self.fd, self._idle, 0)

    def normal(self) -> None:
        os.pwrite(self.fd, self._normal, 0)

    def close(self) -> None:
        os.close(self.fd)


def warm_spare(link: socket.socket, speculative: bool = True, group: GroupPriority | None = None) -> int:
    """Run the warm-up steps (:func:`exercise`, then :func:`prefault_job`) while no job has come.
    The host leaves them out (``speculative=False``) when it asks for the spare while jobs occupy
    every CPU (``runner.sandbox.host.Sandbox._prepare``). What the job needs for certain and is the
    same for every job (its guard, sealed around a key slot) the zygote did once, before it forked.

    The warm-up is speculative: it moves page faults from the job to the spare, at a cost (its
    steps fault pages a job may never touch). So it runs at idle priority: on an idle machine it
    finishes long before the job comes and the job starts warm; on a busy one it gets only
    spare CPU, and it stops at the first step boundary after the job arrives (the host sets the
    spare's priority back to normal when it hands the job over, so an unfinished step never
    holds the job up for long). Returns the number of steps run.

    Idle priority is the spare's job group's (``group``: ``cpu.idle``, or the lowest CPU weight)
    as well as the process's nice 19. The group's is the one that counts: the kernel shares the
    CPU between groups first (each job group is one, ``runner.sandbox.cgroups``; without CPU groups,
    each session is one with autogroup scheduling), whatever the nice values of their
    processes, so with its nice alone the warm-up took CPU from the jobs as an equal
    (docs/benchmarks.md, the sixth and seventh passes). Both are set back before this returns;
    the group's setting raises where it cannot be, and the spare then dies before its job.

    Raising the process's priority back needs ``CAP_SYS_NICE``, which the spare holds until it
    drops every capability, before the job's code runs.
    """
    if not speculative:
        return 0
    poller = select.poll()
    poller.register(link, select.POLLIN | select.POLLHUP)
    state: dict[str, Any] = {}
    steps = [functools.partial(step, state) for step in EXERCISE_STEPS] + [prefault_job]
    done = 0
    os.setpriority(os.PRIO_PROCESS, 0, IDLE_NICE)
    try:
        if group is not None:
            group.idle()
        for step in steps:
            if poller.poll(0):
                break
            step()
            done += 1
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
        if group is not None:
            # Raises where it cannot (the spare then dies before its job): no job runs with its
            # group at idle priority.
            group.normal()
    return done


# A small solution-like module: compiling it once in the spare makes the compiler's first
# copy-on-write faults there, not in the job's compile of solution.py.
_SAMPLE_SOURCE = """
import torch
import torch.nn as nn
from torch import Tensor


class Model(nn.Module):
    def __init__(self, n: int = 3) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(n, n) for _ in range(2)])

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x)) if x.dim() > 1 else x
        return x


def solve(x, *args, scale=1.0, **kwargs):
    captured = {}
    values = [v * scale for v in range(10) if v % 2 == 0]
    try:
        total = sum(values) / len(values)
    except ZeroDivisionError as exc:
        raise ValueError(f"empty: {exc!r}") from exc
    finally:
        captured["done"] = True
    with torch.no_grad():
        y = x @ x.T + total
    return {"y": y, "shapes": [list(t.shape) for t in (x, y)], "one": (lambda z: z + 1)(2)}
"""


def prefault_job() -> None:
    """Pay, in the spare, copy-on-write faults the job's own start would take (like ``exercise``).

    Measured in a forked spare (30 jobs, load ~4.5): the job's compile of ``solution.py`` 0.8 ->
    0.5 ms of CPU. Nothing here is kept: the job starts with the same objects, only fewer of
    their pages still shared with the zygote.
    """
    compile(_SAMPLE_SOURCE, "<warm-up>", "exec", dont_inherit=True)
