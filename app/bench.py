"""``python -m app.bench`` (``make bench``): end-to-end submission latency against the runner alone.

In one run, on a throw-away SQLite database with one seed problem imported:

1. **runner only**: ``runner.judge(job)`` for the seed problem's reference solution, job in →
   verdict out, timed on the host;
2. **end to end**: ``POST /api/v1/submissions?wait=true`` with a bearer token, over real HTTP to a
   real uvicorn server on 127.0.0.1 running the app with its embedded default dispatcher;
3. **concurrency**: 200 submissions from 8 concurrent clients, each with its own Idempotency-Key;
   every one must finish, none lost, none duplicated.

Targets: end-to-end p50 ≤ 100 ms and ≤ 2× the runner-only p50. Exit status 1 if a target or the
concurrency check fails.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from sqlalchemy import func, select

from app.accounts import service as accounts
from app.accounts import tokens
from app.kit.db import Database, upgrade_database, utcnow
from app.kit.runner import default_runner
from app.kit.settings import Settings
from app.main import create_app
from app.problems.importer import import_bank
from app.submissions.models import FINISHED, Submission
from runner.problem import load_problem_dir

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PROBLEM = ROOT / "problems" / "backward-hook-gradients"  # a seed problem, free


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(app: Any, port: int) -> tuple[uvicorn.Server, threading.Thread]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise SystemExit("error: the server did not start")
        time.sleep(0.02)
    return server, thread


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name:<28} n={len(values):<4} p50={pct(values, 0.5):7.1f} ms  p90={pct(values, 0.9):7.1f} ms  "
        f"mean={statistics.fmean(values):7.1f} ms  max={max(values):7.1f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--problem", type=Path, default=DEFAULT_PROBLEM, help="a free problem folder")
    parser.add_argument("--sequential", type=int, default=40, help="latency samples per measurement")
    parser.add_argument("--concurrent", type=int, default=200, help="submissions in the concurrency check")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    args = parser.parse_args(argv)

    problem = load_problem_dir(args.problem)
    if problem.premium:
        parser.error(f"{problem.slug} is a premium problem; pick a free one")
    workdir = Path(tempfile.mkdtemp(prefix="torchdrill-bench-"))
    url = f"sqlite:///{workdir / 'bench.db'}"
    settings = Settings(env="development", database_url=url, api_requests_per_minute=1_000_000,
                        api_submissions_per_minute=1_000_000)  # fmt: skip
    runner = default_runner()
    upgrade_database(url)
    db = Database(url)
    bank = workdir / "bank"
    shutil.copytree(args.problem, bank / problem.slug)
    tracks = Path(args.problem).resolve().parent / "tracks.toml"  # the problem's category names one
    if tracks.is_file():
        shutil.copyfile(tracks, bank / "tracks.toml")
    with db.transaction() as session:
        report = import_bank(session, bank, runner)
        if not report.ok:
            raise SystemExit(f"error: import failed: {report.summary()}")
        user = accounts.sign_up(session, "bench@example.com", "bench password 1234")
        _token, token = tokens.create_token(session, user, "bench", utcnow())
        user_id = user.id

    # 1. runner only: the same job the app builds, judged directly.
    expectations = runner.compute_expectations(problem)
    job = runner.job_for(problem, expectations, problem.solution, "submit")
    for _ in range(5):
        runner.judge(job)
    runner_ms = []
    for _ in range(args.sequential):
        started = time.perf_counter()
        result = runner.judge(job)
        runner_ms.append((time.perf_counter() - started) * 1000)
        assert result.accepted, result.message

    # 2. end to end over HTTP.
    port = free_port()
    server, thread = start_server(create_app(settings, database=db, runner=runner), port)
    base = f"http://127.0.0.1:{port}"
    body = {"problem": problem.slug, "code": problem.solution, "mode": "submit"}
    headers = {"Authorization": f"Bearer {token}"}
    e2e_ms: list[float] = []
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            for i in range(5 + args.sequential):
                started = time.perf_counter()
                response = client.post("/api/v1/submissions?wait=true", json=body)
                elapsed = (time.perf_counter() - started) * 1000
                view = response.json()
                if response.status_code != 200 or view.get("verdict") != "accepted":
                    raise SystemExit(f"error: unexpected answer {response.status_code}: {view}")
                if i >= 5:
                    e2e_ms.append(elapsed)

        # 3. concurrency: N submissions from K clients, each once (retries reuse the key).
        with db.transaction() as session:
            before = (
                session.scalar(select(func.count(Submission.id)).where(Submission.user_id == user_id)) or 0
            )

        def one(_: int, client: httpx.Client) -> tuple[int, str]:
            key = uuid.uuid4().hex
            for _attempt in range(3):
                try:
                    response = client.post("/api/v1/submissions?wait=true", json=body,
                                           headers={"Idempotency-Key": key})  # fmt: skip
                    break
                except httpx.TransportError:
                    continue
            else:
                raise SystemExit("error: a client could not reach the server three times")
            view = response.json()
            while view["status"] != FINISHED:
                view = client.get(f"/api/v1/submissions/{view['id']}?wait=true").json()
            return int(view["id"]), str(view["verdict"])

        clients = [httpx.Client(base_url=base, headers=headers, timeout=120) for _ in range(args.clients)]
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.clients) as pool:
            outcomes = list(pool.map(lambda i: one(i, clients[i % args.clients]), range(args.concurrent)))
        wall_s = time.perf_counter() - started
        for client in clients:
            client.close()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    with db.transaction() as session:
        after = session.scalar(select(func.count(Submission.id)).where(Submission.user_id == user_id)) or 0
        unfinished = (
            session.scalar(select(func.count(Submission.id)).where(Submission.status != FINISHED)) or 0
        )
    db.dispose()
    shutil.rmtree(workdir, ignore_errors=True)

    ids = [sid for sid, _ in outcomes]
    accepted = sum(1 for _, verdict in outcomes if verdict == "accepted")
    runner_p50, e2e_p50 = pct(runner_ms, 0.5), pct(e2e_ms, 0.5)
    print(f"problem: {problem.slug}   judge workers: {settings.judge_workers}   database: SQLite (WAL)")
    print(summary("runner only (job→verdict)", runner_ms))
    print(summary("end to end (POST ?wait)", e2e_ms))
    print(f"overhead: p50 +{e2e_p50 - runner_p50:.1f} ms, ratio {e2e_p50 / runner_p50:.2f}×")
    print(
        f"concurrency: {args.concurrent} submissions from {args.clients} clients in {wall_s:.1f} s "
        f"({args.concurrent / wall_s:.1f}/s): created {after - before}, distinct ids {len(set(ids))}, "
        f"accepted {accepted}, unfinished {unfinished}"
    )
    checks = {
        "p50 ≤ 100 ms end to end": e2e_p50 <= 100,
        "p50 ≤ 2× runner only": e2e_p50 <= 2 * runner_p50,
        "none lost, none duplicated": after - before == args.concurrent == len(set(ids)) and unfinished == 0,
        "all accepted": accepted == args.concurrent,
    }
    for name, ok in checks.items():
        print(f"  [{'ok' if ok else 'FAIL'}] {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
