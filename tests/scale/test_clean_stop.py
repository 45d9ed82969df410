"""Clean stops of a runner worker: SIGTERM leaves no cgroup and no heartbeat file behind; the
default heartbeat file is the process's own; no broker URL outside development is refused."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from runner.sandbox.cgroups import GROUP, ROOT
from tests.scale.stack import REPO, Stack, wait_for

pytestmark = [pytest.mark.celery, pytest.mark.postgres, pytest.mark.slow]


def groups_of(pid: int) -> list[Path]:
    """The job and zygote groups a runner process owns (their names carry its pid)."""
    found = []
    for controller in ROOT.iterdir():
        parent = controller / GROUP
        if parent.is_dir():
            found += [g for g in parent.iterdir() if g.is_dir() and g.name.split("-")[2:3] == [str(pid)]]
    return found


def test_a_runner_stopped_with_sigterm_removes_its_cgroups_and_heartbeat(stack: Stack) -> None:
    runner = stack.start_runner("runner-stopping", slots=1, TORCHDRILL_HEARTBEAT_FILE="")
    assert runner.heartbeat == Path(f"/tmp/torchdrill-runner-{runner.pid}.heartbeat")
    # So that the check below can fail: the zygote's group and the spares' job groups exist.
    owned = wait_for(lambda: groups_of(runner.pid), 30, "the sandbox's groups")
    assert any(g.name.startswith("zygote-") for g in owned) and any(g.name.startswith("job-") for g in owned)
    runner.kill(signal.SIGTERM)
    runner.popen.wait(timeout=60)
    assert groups_of(runner.pid) == [], runner.output()[-3000:]
    assert not Path(f"/tmp/torchdrill-runner-{runner.pid}.heartbeat").exists()
    assert "its sandbox and cgroups are removed" in runner.output()


def test_two_runners_on_one_host_have_a_heartbeat_each(stack: Stack) -> None:
    a = stack.start_runner("runner-a", slots=1, wait=False, TORCHDRILL_HEARTBEAT_FILE="")
    b = stack.start_runner("runner-b", slots=1, wait=False, TORCHDRILL_HEARTBEAT_FILE="")
    for proc in (a, b):
        stack.wait_runner(proc)
    assert a.heartbeat != b.heartbeat

    def check(*args: str) -> int:
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
        command = [sys.executable, "-m", "runner.transport.celery_worker", "healthcheck", *args]
        return subprocess.run(command, env=env, timeout=60).returncode

    assert check("--pid", str(a.pid)) == 0 and check("--pid", str(b.pid)) == 0
    a.kill(signal.SIGKILL)
    assert check("--pid", str(a.pid)) == 1  # its process is gone, whatever b's file says
    assert check("--pid", str(b.pid)) == 0


def test_a_runner_without_a_broker_url_refuses_to_start_in_production() -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "TORCHDRILL_ENV": "production"}
    command = [sys.executable, "-m", "runner.transport.celery_worker"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "TORCHDRILL_BROKER_URL must be set" in done.stderr
