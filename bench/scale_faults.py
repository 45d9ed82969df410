"""What a fault costs: seconds from a SIGKILL to the verdicts it held up, scaled out.

    .venv/bin/python -m bench.scale_faults [--rounds 3] [--job-s 1.0]

The deployment of docs/deploy.md's "Without containers" (``tests/scale/by_hand.py``: web,
recorder, two runner workers, PostgreSQL, a Redis database of its own), under a steady load of
jobs that each take ``--job-s``. Each round:

* **runner**: SIGKILL the runner worker that holds jobs; the time until the last of those jobs
  has its verdict. Target: docs/deploy.md's worst case, 2 × lease + 2 × lease / 3 (5.3 s), plus
  two job runs (a free slot may first have to finish its own job) and 1 s for the recording.
  Also the requeue alone (the reaper's log line): 5.3 s.
* **recorder**: SIGKILL the recorder, start it again after 1 s (systemd's ``RestartSec``); the
  time from the new recorder's first breath until every verdict that waited for it is recorded.
  Target: 5.3 s after its start-up, plus 10 s for the start-up itself on 2 loaded CPUs.

Prints a markdown table of the rounds (worst of each) and exits 1 if a target was missed.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from tests.scale.by_hand import ByHand, wait_verdicts  # noqa: E402
from tests.scale.stack import DEFAULT_PG, RedisServer, json_lines, wait_for  # noqa: E402

LEASE_S = 2.0
BOUND_S = 2 * LEASE_S + 2 * LEASE_S / 3


def slow_code(job_s: float) -> str:
    return f"import time\nimport torch\n\ntime.sleep({job_s})\n\n\ndef add(a, b):\n    return a + b\n"


def submit(client: httpx.Client, code: str) -> int:
    response = client.post("/api/v1/submissions", json={"problem": "add-tensors", "code": code})
    response.raise_for_status()
    return int(response.json()["id"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--job-s", type=float, default=1.0)
    args = parser.parse_args()
    base = os.environ.get("TORCHDRILL_TEST_DATABASE_URL", "")
    with tempfile.TemporaryDirectory(prefix="td-faults-") as tmp:
        server = RedisServer(Path(tmp) / "redis")
        server.dir.mkdir()
        server.start()
        deployment = ByHand(base if base.startswith("postgresql") else DEFAULT_PG, server.port, 3, Path(tmp))
        deployment.extra_env["TORCHDRILL_API_SUBMISSIONS_PER_MINUTE"] = "100000"
        deployment.create_database()
        try:
            return run(deployment, args.rounds, args.job_s)
        finally:
            deployment.close()
            server.stop()


def run(deployment: ByHand, rounds: int, job_s: float) -> int:
    deployment.migrate()
    deployment.start_web()
    recorder = deployment.start_recorder()
    client = httpx.Client(
        base_url=deployment.base, headers={"Authorization": f"Bearer {deployment.api_token()}"}, timeout=60
    )
    code = slow_code(job_s)
    runners = {i: deployment.start_runner(i) for i in ("1", "2")}
    for proc in runners.values():
        deployment.wait_runner(proc)
    runner_s: list[float] = []
    requeue_s: list[float] = []
    recorder_s: list[float] = []
    ids: list[int] = []
    for round_ in range(rounds):
        victim = str(round_ % 2 + 1)
        ids += [submit(client, code) for _ in range(8)]
        name = deployment.worker_name(victim)
        held: list[int] = wait_for(
            lambda n=name: deployment.held(n),  # type: ignore[misc]
            60,
            "a runner holding jobs",
            every=0.02,
        )
        runners[victim].kill(signal.SIGKILL)
        killed = time.monotonic()
        killed_wall = time.time()
        ids += [submit(client, code) for _ in range(4)]
        seen = wait_verdicts(deployment, held, 120)
        runner_s.append(max(seen.values()) - killed)
        reaped = [
            e["ts"]
            for e in json_lines(recorder.output())
            if f"{name} lost its lease" in e.get("message", "") and e["ts"] >= killed_wall
        ]
        requeue_s.append(min(reaped) - killed_wall if reaped else float("inf"))
        runners[victim] = deployment.start_runner(victim)

        recorder.kill(signal.SIGKILL)
        waiting = [submit(client, code) for _ in range(4)]
        ids += waiting
        time.sleep(1.0)  # RestartSec=1
        restarted = time.monotonic()
        recorder = deployment.start_recorder()
        seen = wait_verdicts(deployment, waiting, 120)
        recorder_s.append(max(seen.values()) - restarted)
        deployment.wait_runner(runners[victim])
    wait_verdicts(deployment, ids, 180)
    rows = deployment.finished(ids)
    lost_or_doubled = len(ids) - len(rows)
    runner_target = BOUND_S + 2 * job_s + 1.0
    recorder_target = BOUND_S + 10.0  # + the recorder's own start (imports, Celery) on 2 loaded CPUs
    print(f"\n| fault ({rounds} rounds, jobs of {job_s:g} s) | median | worst | target |")
    print("|---|---|---|---|")
    print(
        f"| runner SIGKILL → its jobs back in the queue | {statistics.median(requeue_s):.1f} s | "
        f"{max(requeue_s):.1f} s | ≤ {BOUND_S:.1f} s |"
    )
    print(
        f"| runner SIGKILL → its jobs' verdicts | {statistics.median(runner_s):.1f} s | "
        f"{max(runner_s):.1f} s | ≤ {runner_target:.1f} s |"
    )
    print(
        f"| recorder SIGKILL, restart → waiting verdicts | {statistics.median(recorder_s):.1f} s | "
        f"{max(recorder_s):.1f} s | ≤ {recorder_target:.1f} s |"
    )
    print(f"\n{len(ids)} submissions, {len(rows)} verdicts, {lost_or_doubled} lost")
    ok = (
        max(requeue_s) <= BOUND_S
        and max(runner_s) <= runner_target
        and max(recorder_s) <= recorder_target
        and lost_or_doubled == 0
    )
    print("[PASS]" if ok else "[FAIL] a fault cost more than docs/deploy.md states")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
