"""The sandbox's processes carry names of their own (runner.sandbox.zygote), so ``top``, ``ps -o comm``
and ``perf`` tell the zygote and its spares from each other and from the web process."""

from __future__ import annotations

import time
from pathlib import Path

from runner.engine import Runner
from runner.sandbox.control import SPARE_NAME, ZYGOTE_NAME
from tests.runner import processes
from tests.runner.conftest import JudgeFn


def _names(runner: Runner) -> list[str]:
    assert runner.ready() and runner.sandbox_pid() is not None
    names = []
    for pid in processes.descendants(runner.sandbox_pid()):
        try:
            names.append(Path(f"/proc/{pid}/comm").read_text().strip())
        except OSError:  # a spare that exited meanwhile
            continue
    return names


def test_the_zygote_and_its_spares_are_named(runner: Runner, judge_probe: JudgeFn) -> None:
    assert judge_probe("def probe():\n    return 0\n").accepted  # the pool is warm, spares made
    # A spare is named first thing after its fork; until then it has the zygote's name.
    deadline = time.monotonic() + 10
    names = _names(runner)
    while not (names.count(ZYGOTE_NAME) == 1 and SPARE_NAME in names) and time.monotonic() < deadline:
        time.sleep(0.05)
        names = _names(runner)
    assert names.count(ZYGOTE_NAME) == 1, names
    assert SPARE_NAME in names, names


def test_a_job_runs_under_the_spare_s_name(judge_probe: JudgeFn) -> None:
    code = (
        "def probe():\n"
        "    with open('/proc/self/comm') as fh:\n"
        "        name = fh.read().strip()\n"
        f"    assert name == {SPARE_NAME!r}, name\n"
        "    return 0\n"
    )
    result = judge_probe(code)
    assert result.accepted, result.message or [c.message for c in result.cases]
