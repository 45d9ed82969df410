"""The learner's code runs only once the host has cleared it (``runner.sandbox.control``'s
clearance pipe): the host checks the source policy while the job's spare gets ready, and the spare
waits for its word before it imports ``solution.py``. Against the real sandbox: the job's cgroup
tells whether the code ran while the host had not yet cleared it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from runner.engine import Runner, job_payload
from runner.format.problem import ProblemFiles
from runner.jobs import Expectations, JudgeResult, Limits
from runner.sandbox.cgroups import JobCgroup
from runner.sandbox.channel import RawRun
from runner.sandbox.watch import JobWatch
from runner.verdict import Verdict

HELD_S = 0.6  # how long the host holds the job after its hand-over, before it checks the code
# The spare's own CPU by then (its making, warm-up and set-up: tens of ms) stays far below this;
# code spinning for HELD_S takes most of it, on a busy machine still several times this.
RAN = 150.0  # ms

# A module that spins at import for longer than the host holds the job (then returns normally,
# so the control run ends without a time limit). ``os`` is refused by the source policy.
SPINS = """
import os
import time

_until = time.monotonic() + {seconds}
while time.monotonic() < _until:
    pass


def probe():
    return 0
"""


class HeldWatch(JobWatch):
    """Holds the host's job thread for ``HELD_S`` at one point of the job's way (once the spare
    has all of its job, just before the host checks the code; or once it has cleared it), then reads the
    CPU the job's cgroup has used: what the spare did meanwhile."""

    def __init__(self, seen: list[float], after_clearance: bool) -> None:
        self.seen = seen
        self.after_clearance = after_clearance
        self.group: JobCgroup | None = None

    def running(self, group: JobCgroup) -> None:
        self.group = group

    def stage(self, name: str) -> None:
        # "spare woken": the spare has its whole job (its input closed), the host checks next
        if name == ("code cleared" if self.after_clearance else "spare woken"):
            self.hold()

    def hold(self) -> None:
        assert self.group is not None
        time.sleep(HELD_S)  # a window: whatever is ready to run in the spare runs in it
        self.seen.append(self.group.cpu_ms())


def watched(runner: Runner, after_clearance: bool) -> Iterator[list[float]]:
    seen: list[float] = []
    runner.watch_jobs(lambda: HeldWatch(seen, after_clearance))
    try:
        yield seen
    finally:
        runner.watch_jobs(None)


@pytest.fixture
def held(runner: Runner) -> Iterator[list[float]]:
    """The CPU the job's spare used in a window before the host checked its code."""
    yield from watched(runner, after_clearance=False)


@pytest.fixture
def held_after(runner: Runner) -> Iterator[list[float]]:
    """The CPU the job's spare used in a window just after the host cleared its code."""
    yield from watched(runner, after_clearance=True)


def judge(runner: Runner, probe: tuple[ProblemFiles, Expectations], code: str) -> JudgeResult:
    problem, expectations = probe
    return runner.judge(problem.job(expectations, code, "run"))


def test_refused_code_never_runs_however_long_the_check_waits(
    checked_runner: Runner, probe: tuple[ProblemFiles, Expectations], held: list[float]
) -> None:
    result = judge(checked_runner, probe, SPINS.format(seconds=2 * HELD_S))
    assert result.verdict == Verdict.COMPILE_ERROR and "`os`" in result.message, result.message
    assert len(held) == 1
    assert held[0] < RAN, f"the spare used {held[0]:.0f} ms of CPU before its code was cleared"


def test_cleared_code_waits_for_the_word_then_runs(
    checked_runner: Runner, probe: tuple[ProblemFiles, Expectations], held: list[float]
) -> None:
    allowed = SPINS.replace("import os\n", "").format(seconds=0.2)
    result = judge(checked_runner, probe, allowed)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert held[0] < RAN, f"the spare used {held[0]:.0f} ms of CPU before its code was cleared"


def test_the_window_shows_code_that_runs(
    checked_runner: Runner, probe: tuple[ProblemFiles, Expectations], held_after: list[float]
) -> None:
    """The measurement itself: the same window, once the code is cleared, sees its spinning import
    run (so a spare that ran the code before its word would show it in the window before)."""
    allowed = SPINS.replace("import os\n", "").format(seconds=2 * HELD_S)
    result = judge(checked_runner, probe, allowed)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert held_after[0] > RAN, f"only {held_after[0]:.0f} ms of CPU in the window: it cannot tell"


def test_a_refusal_stands_where_the_sandbox_cannot_run(probe: tuple[ProblemFiles, Expectations]) -> None:
    """Where the run fails before the host checked the code (no sandbox), the code is checked then:
    a refused solution still gets its refusal, an accepted one the platform's error."""

    class NoSandbox(Runner):
        def run_payload(
            self, payload: dict[str, Any], limits: Limits, cleared: Callable[[], bool] | None = None
        ) -> RawRun:
            raise OSError("no sandbox on this host")

    runner = NoSandbox(max_concurrent=1)
    refused = judge(runner, probe, "import os\n\ndef probe():\n    return 0\n")
    assert refused.verdict == Verdict.COMPILE_ERROR and refused.message.startswith("Line 1: ")
    failed = judge(runner, probe, "def probe():\n    return 0\n")
    assert failed.verdict == Verdict.INTERNAL_ERROR


def test_the_check_takes_nothing_from_the_jobs_time_limit(
    runner: Runner, probe: tuple[ProblemFiles, Expectations]
) -> None:
    """A check that takes most of the job's wall-time limit (a large file on a busy host) does not
    shorten it: code that needs half the limit after the word still finishes."""
    problem, _ = probe
    limits = Limits(time_s=1.0)

    def slow_check() -> bool:
        time.sleep(0.8 * limits.time_s)
        return True

    code = SPINS.replace("import os\n", "").format(seconds=0.5 * limits.time_s)
    payload = job_payload(code, problem.tests, problem.entry_point, None)
    raw = runner.run_payload(payload, limits, slow_check)
    assert not raw.timed_out and not raw.withheld
    assert any(record.get("type") == "done" for record in raw.records), raw.records
