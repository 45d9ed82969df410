"""The making of spares (the zygote's forks, each new spare's set-up until it joins its job's
group) runs in the zygote's own CPU group, at idle priority while enough spares are ready
(``runner.sandbox.host.Sandbox``, ``runner.sandbox.cgroups.ZygoteCgroup``): against the
real sandbox."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner.format.problem import load_problem_dir
from runner.jobs import Limits
from runner.sandbox.cgroups import ZygoteCgroup, usable_cpus
from runner.sandbox.host import Sandbox
from tests.runner.conftest import FIXTURES


def zygote_group(sandbox: Sandbox) -> ZygoteCgroup:
    group = sandbox.zygote_group()
    if group is None:
        pytest.skip("no cpu controller on this host")
    return group


def wait_until_every_spare_is_made(sandbox: Sandbox) -> None:
    """Until each spare asked for is in its job's group (its making done), or fail."""
    deadline = time.monotonic() + 30
    while (state := sandbox.pool_state()).spares_made < state.spares_ready:
        assert time.monotonic() < deadline, "spares not made within 30 s"
        time.sleep(0.01)


def run_one_job(sandbox: Sandbox) -> None:
    wait_until_every_spare_is_made(sandbox)
    problem = load_problem_dir(FIXTURES / "add-one")
    payload = {
        "code": problem.solution,
        "tests_source": problem.tests,
        "entry_point": problem.entry_point,
        "cases": None,
    }
    raw = sandbox.run(payload, Limits())
    assert any(record.get("type") == "done" for record in raw.records), raw.records
    sandbox.wait_for_replacements()  # the replacement spare has been asked for


@pytest.fixture
def sandboxes() -> Iterator[list[Sandbox]]:
    made: list[Sandbox] = []
    yield made
    for sandbox in made:
        sandbox.close()


def test_the_zygote_runs_in_a_cpu_group_of_its_own(sandboxes: list[Sandbox]) -> None:
    sandbox = Sandbox(spares=1)
    sandboxes.append(sandbox)
    group = zygote_group(sandbox)
    commands = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in group.pids()]
    assert any(b"runner.sandbox.zygote" in command for command in commands), commands
    sandbox.close()
    assert not group.path.exists()  # removed with the sandbox


@pytest.mark.parametrize("enough_ready", [True, False])
def test_spares_are_made_at_idle_priority_only_while_enough_are_ready(
    sandboxes: list[Sandbox], enough_ready: bool
) -> None:
    # One spare ready per CPU lets that many jobs start at once; with fewer, a job may soon wait
    # for the spare being made, which must then not wait for spare CPU.
    cpus = usable_cpus()
    sandbox = Sandbox(spares=cpus + 2 if enough_ready else cpus)
    sandboxes.append(sandbox)
    group = zygote_group(sandbox)
    run_one_job(sandbox)  # the job took one made spare: cpus + 1 (or cpus - 1) still ready
    value = (group.path / group.setting.file).read_text().strip()
    assert value == (group.setting.idle if enough_ready else group.setting.normal)
