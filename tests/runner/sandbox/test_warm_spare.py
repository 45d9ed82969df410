"""A spare's warm-up (runner.sandbox.warmup.warm_spare): it runs at idle priority (the process's and its
job group's), stops for a job, and always leaves both at the normal priority."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from runner.sandbox import warmup


@pytest.fixture
def link() -> Iterator[tuple[socket.socket, socket.socket]]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    yield ours, theirs
    ours.close()
    theirs.close()


def in_child(run: Callable[[], int]) -> tuple[int, int]:
    """(what ``run()`` returned, the priority afterwards), in a forked child in a session of its
    own, as a spare is: the test process's priority is not touched."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setsid()
            value = run()
            os.write(write_end, f"{value} {os.getpriority(os.PRIO_PROCESS, 0)}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    data = os.read(read_end, 100).decode()
    os.close(read_end)
    os.waitpid(pid, 0)
    returned, nice = data.split()
    return int(returned), int(nice)


@pytest.fixture
def group_file(tmp_path: Path) -> Iterator[tuple[Path, warmup.GroupPriority]]:
    """A stand-in for the job group's ``cpu.idle``, opened as the spare opens it (write-only)."""
    path = tmp_path / "cpu.idle"
    path.write_text("0")
    priority = warmup.GroupPriority(os.open(path, os.O_WRONLY), "1", "0")
    yield path, priority
    with contextlib.suppress(OSError):
        priority.close()


def test_every_step_runs_while_no_job_waits(link: tuple[socket.socket, socket.socket]) -> None:
    ours, _ = link
    steps, nice = in_child(lambda: warmup.warm_spare(ours))
    assert steps == len(warmup.EXERCISE_STEPS) + 1  # the exercise, then prefault_job
    assert nice == 0


def test_a_waiting_job_stops_the_warm_up(link: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = link
    theirs.send(b'{"op": "job"}')
    steps, nice = in_child(lambda: warmup.warm_spare(ours))
    assert steps == 0
    assert nice == 0


def test_a_dropped_spare_stops_warming_too(link: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = link
    theirs.close()  # the host closed the link: no job will come
    steps, _ = in_child(lambda: warmup.warm_spare(ours))
    assert steps == 0


def test_the_steps_run_at_idle_priority(
    link: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, _ = link
    seen: list[int] = []
    monkeypatch.setattr(warmup, "prefault_job", lambda: seen.append(os.getpriority(os.PRIO_PROCESS, 0)))

    def run() -> int:
        warmup.warm_spare(ours)
        return seen[0]

    during, after = in_child(run)
    assert during == warmup.IDLE_NICE
    assert after == 0


def test_the_steps_run_with_the_job_group_at_idle_priority(
    link: tuple[socket.socket, socket.socket],
    group_file: tuple[Path, warmup.GroupPriority],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The kernel shares the CPU between groups first, whatever their processes' nice values:
    # with its nice alone, the warm-up took CPU from the jobs as an equal.
    ours, _ = link
    path, group = group_file
    seen: list[str] = []
    monkeypatch.setattr(warmup, "prefault_job", lambda: seen.append(path.read_text()))

    def run() -> int:
        warmup.warm_spare(ours, group=group)
        return int(seen == ["1"])

    assert in_child(run) == (1, 0)
    assert path.read_text() == "0"  # set back before the job


def test_a_group_that_cannot_be_set_back_fails_the_spare(
    link: tuple[socket.socket, socket.socket], group_file: tuple[Path, warmup.GroupPriority]
) -> None:
    # No job may run with its group at idle priority: the spare raises (and dies) instead.
    ours, _ = link
    path, group = group_file

    class Stuck(warmup.GroupPriority):
        def normal(self) -> None:
            raise OSError("refused")

    stuck = Stuck(group.fd, "1", "0")

    def run() -> int:
        try:
            warmup.warm_spare(ours, group=stuck)
        except OSError:
            return 1
        return 0

    assert in_child(run) == (1, 0)
    assert path.read_text() == "1"


def test_the_warm_up_leaves_nothing_behind(link: tuple[socket.socket, socket.socket]) -> None:
    """What a job could observe is as it was: hook methods, torch's mode stacks, stdout, the
    seeding functions (the spare reseeds after its warm-up in any case)."""
    import sys

    import torch
    import torch.nn as nn

    ours, _ = link

    def state() -> tuple[object, ...]:
        return (
            nn.Module.register_forward_hook,
            nn.Module.register_full_backward_hook,
            torch.manual_seed,
            torch.random.manual_seed,
            torch._C._len_torch_function_stack(),
            torch._C._len_torch_dispatch_stack(),
            sys.stdout,
        )

    def run() -> int:
        before = state()
        warmup.warm_spare(ours)
        return int(state() == before)

    unchanged, _ = in_child(run)
    assert unchanged == 1


@pytest.mark.parametrize(
    ("speculative", "expected"),
    [(True, ["prefault"]), (False, [])],  # False: jobs filled every CPU (Sandbox._prepare)
)
def test_the_warm_up_runs_only_when_asked(
    link: tuple[socket.socket, socket.socket],
    monkeypatch: pytest.MonkeyPatch,
    speculative: bool,
    expected: list[str],
) -> None:
    # It only moves page faults from the job to the spare: not while jobs fill every CPU.
    ours, _ = link
    order: list[str] = []
    monkeypatch.setattr(warmup, "prefault_job", lambda: order.append("prefault"))

    def run() -> int:
        steps = warmup.warm_spare(ours, speculative)
        return steps if order == expected else -1

    steps, nice = in_child(run)
    assert steps == (len(warmup.EXERCISE_STEPS) + 1 if speculative else 0)
    assert nice == 0
