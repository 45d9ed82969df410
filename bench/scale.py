"""Scale-out benchmark: the embedded judge versus runner workers behind Celery, in one run.

    .venv/bin/python -m bench.scale [--submissions 300] [--clients 8] [--problem SLUG]

Every configuration runs the same workload against a web process on PostgreSQL: ``clients``
learners, each submitting and then waiting for the verdict (``?wait=true``) in a loop, until
``submissions`` verdicts are in. Latency is the learner's: from sending the POST to reading the
verdict. A private redis-server and a scratch database are created and removed. Prints a markdown
table (and appends nothing anywhere: copy it into docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from tests.scale.stack import RedisServer, Stack, WebClient, clear_database  # noqa: E402


def scratch_database(base: str, bank: Path) -> tuple[str, Any]:
    from app.kit.db import Database, upgrade_database
    from app.problems.importer import import_bank
    from runner import get_runner

    name = f"torchdrill_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(base).set(database=name).render_as_string(hide_password=False)
    upgrade_database(url)
    db = Database(url)
    with db.transaction() as session:
        report = import_bank(session, bank, get_runner())
    assert report.ok, report.summary()
    db.dispose()

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and its reaped children (sandboxed jobs are reaped by the runner)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def load(base: str, slug: str, code: str, submissions: int, clients: int) -> dict[str, float]:
    learners = [WebClient(base) for _ in range(clients)]
    for learner in learners:
        learner.signup()
    for learner in learners[:2]:  # warm-up, not measured
        learner.verdict(learner.submit(slug, code))
    latencies: list[float] = []
    verdicts: dict[str, int] = {}
    lock = threading.Lock()
    remaining = [submissions]

    def loop(learner: WebClient) -> None:
        while True:
            with lock:
                if remaining[0] <= 0:
                    return
                remaining[0] -= 1
            started = time.perf_counter()
            body = learner.verdict(learner.submit(slug, code), timeout=120)
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                verdicts[str(body.get("verdict"))] = verdicts.get(str(body.get("verdict")), 0) + 1

    threads = [threading.Thread(target=loop, args=(learner,)) for learner in learners]
    wall = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - wall
    for learner in learners:
        learner.close()
    latencies.sort()
    return {
        "throughput": len(latencies) / wall,
        "p50": statistics.median(latencies) * 1000,
        "p95": latencies[int(0.95 * (len(latencies) - 1))] * 1000,
        "accepted": verdicts.get("accepted", 0),
        "total": len(latencies),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--problem", default="backward-hook-gradients")
    parser.add_argument("--pg", default=os.environ.get("TORCHDRILL_TEST_DATABASE_URL", "")
                        or "postgresql+psycopg://postgres@127.0.0.1:5432/test")  # fmt: skip
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="scale-bench-"))
    bank = workdir / "bank"
    shutil.copytree(REPO / "problems" / args.problem, bank / args.problem)
    shutil.copyfile(REPO / "problems" / "tracks.toml", bank / "tracks.toml")  # its category names a track
    code = (bank / args.problem / "solution.py").read_text()
    redis_server = RedisServer(workdir)
    redis_server.start()
    url, drop = scratch_database(args.pg, bank)
    configurations: list[tuple[str, int, int]] = [
        ("embedded (default: 3 judge threads in the web process, one sandbox slot per CPU)", 0, 0),
        ("Celery: 2 runner worker processes x 1 sandbox slot", 2, 1),
        ("Celery: 2 runner worker processes x 2 sandbox slots", 2, 2),
    ]
    results = []
    try:
        for label, workers, slots in configurations:
            redis_server.client().flushall()
            clear_database(url)
            stack = Stack(redis_server, url, workdir)
            try:
                if workers:
                    stack.start_recorder()
                    for i in range(workers):
                        stack.start_runner(f"bench-runner-{i}", slots=slots)
                else:
                    stack.settings_env.pop("TORCHDRILL_BROKER_URL")
                _web, base = stack.start_web()
                before = {p.name: cpu_seconds(p.pid) for p in stack.procs}
                figures = load(base, args.problem, code, args.submissions, args.clients)
                cpu = {
                    name: cpu_seconds(p.pid) - before[name] for name, p in ((p.name, p) for p in stack.procs)
                }
                figures["cpu_ms_per_verdict"] = 1000 * sum(cpu.values()) / figures["total"]
                print(
                    f"  CPU seconds by process: { {k: round(v, 1) for k, v in cpu.items()} }", file=sys.stderr
                )
            finally:
                stack.close()
            results.append((label, figures))
            print(f"{label}: {figures}", file=sys.stderr, flush=True)
    finally:
        drop()
        redis_server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    print(f"\nproblem: {args.problem} (reference solution, submit mode); {args.submissions} submissions, "
          f"{args.clients} learners each submitting and waiting for the verdict in a loop\n")  # fmt: skip
    print("| configuration | verdicts/s | p50 latency | p95 latency | accepted | CPU ms / verdict |")
    print("|---|---|---|---|---|---|")
    for label, f in results:
        print(f"| {label} | {f['throughput']:.1f} | {f['p50']:.0f} ms | {f['p95']:.0f} ms | "
              f"{f['accepted']:.0f}/{f['total']:.0f} | {f['cpu_ms_per_verdict']:.0f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
