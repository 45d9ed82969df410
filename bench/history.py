"""``python -m bench.history`` (``make bench``): listings against a growing history.

For each database backend (SQLite, and PostgreSQL when ``--postgres-url`` is given), on a
throw-away database built by the migrations with the real problem bank imported:

1. create 1,000 learners (rows through the ``User`` model, one shared password hash);
2. measure the five listings with an empty history;
3. add submissions in bulk through the ``Submission`` model (spread over the learners, the bank's
   problems, both modes, every verdict, 90 days) up to each size, rebuild the maintained progress
   state with the product's own ``progress_rebuild`` (so it is exactly what recording verdicts
   one by one would have written), and measure again.

Each measurement is ``--samples`` real HTTP requests to a real uvicorn server on 127.0.0.1, after
warm-up: the problem list page (signed out), ``GET /api/v1/problems`` and ``GET
/api/v1/submissions?limit=50`` (bearer token), a problem page and the account page (signed in).
The measured learner is one of the 1,000, with their share of the history.

Targets (scale issue): p50 ≤ 50 ms at 1 M submissions and ≤ 3× the empty-history p50, for each
listing. Exit status 1 if one is missed.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, func, insert, select, text
from sqlalchemy.engine import make_url

from app.accounts import tokens
from app.accounts.models import User
from app.kit.db import Database, upgrade_database, utcnow
from app.kit.runner import default_runner
from app.kit.security import hash_password
from app.kit.settings import Settings
from app.main import create_app
from app.problems.importer import import_bank
from app.problems.models import Problem
from app.submissions import progress_rebuild
from app.submissions.models import Submission
from bench.web import free_port, pct, start_server

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "bench password 1234"
VERDICTS = ("accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "compile_error")
VERDICT_WEIGHTS = (35, 45, 12, 5, 3)
CHUNK = 20_000


@contextmanager
def postgres_database(base_url: str) -> Iterator[str]:
    """A brand-new PostgreSQL database on the server of ``base_url``, dropped afterwards."""
    name = f"torchdrill_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(base_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def add_learners(db: Database, count: int) -> list[int]:
    password_hash = hash_password(PASSWORD)
    now = utcnow()
    with db.transaction() as session:
        rows = [
            {"email": f"learner{i}@bench.example", "password_hash": password_hash, "role": "student",
             "created_at": now}
            for i in range(count)
        ]  # fmt: skip
        session.execute(insert(User), rows)
        return list(
            session.scalars(select(User.id).where(User.email.like("%@bench.example")).order_by(User.id))
        )


def add_submissions(db: Database, count: int, learners: list[int], rng: random.Random) -> None:
    """``count`` more finished submissions through the ``Submission`` model, in bulk."""
    with db.transaction() as session:
        problems = [(p.id, p.current_version_id) for p in session.scalars(select(Problem))]
    now = utcnow()
    done = 0
    while done < count:
        n = min(CHUNK, count - done)
        rows: list[dict[str, Any]] = []
        for _ in range(n):
            problem_id, version_id = rng.choice(problems)
            created = now - timedelta(seconds=rng.uniform(0, 90 * 86400))
            rows.append(
                {
                    "user_id": rng.choice(learners),
                    "problem_id": problem_id,
                    "problem_version_id": version_id,
                    "mode": "submit" if rng.random() < 0.7 else "run",
                    "code": "def solution():\n    pass\n",
                    "status": "finished",
                    "verdict": rng.choices(VERDICTS, VERDICT_WEIGHTS)[0],
                    "passed": 1,
                    "total": 5,
                    "cases": [],
                    "message": "",
                    "time_ms": 25.0,
                    "runtime": {},
                    "created_at": created,
                    "started_at": created,
                    "finished_at": created,
                }
            )
        with db.transaction() as session:
            session.execute(insert(Submission), rows)
        done += n
    with db.transaction() as session:
        progress_rebuild.rebuild(session)


def sign_in(base: str, email: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=60, follow_redirects=False)
    page = client.get("/login").text
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    if not match:
        raise SystemExit("error: no CSRF token on /login")
    response = client.post(
        "/login", data={"email": email, "password": PASSWORD, "csrf_token": match.group(1)}
    )
    if response.status_code != 303:
        raise SystemExit(f"error: log-in failed ({response.status_code})")
    return client


def measure(call: Callable[[], httpx.Response], samples: int) -> tuple[float, float]:
    for _ in range(3):
        call()
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        response = call()
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"error: {response.request.url} answered {response.status_code}")
    return pct(times, 0.5), pct(times, 0.95)


def run_backend(
    label: str, url: str, sizes: list[int], samples: int, learners_n: int
) -> list[tuple[Any, ...]]:
    upgrade_database(url)
    db = Database(url)
    runner = default_runner()
    settings = Settings(env="development", database_url=url, api_requests_per_minute=1_000_000)
    with db.transaction() as session:
        report = import_bank(session, ROOT / "problems", runner)
        if not report.ok:
            raise SystemExit(f"error: import failed: {report.summary()}")
        slug = session.scalars(
            select(Problem.slug).where(Problem.premium.is_(False)).order_by(Problem.id)
        ).first()
    learners = add_learners(db, learners_n)
    with db.transaction() as session:
        me = session.get(User, learners[len(learners) // 2])
        assert me is not None
        _row, token = tokens.create_token(session, me, "bench", utcnow())
        email = me.email
    rng = random.Random(20261203)
    port = free_port()
    server, thread = start_server(create_app(settings, database=db, runner=runner), port)
    base = f"http://127.0.0.1:{port}"
    rows: list[tuple[Any, ...]] = []
    try:
        anonymous = httpx.Client(base_url=base, timeout=60)
        api = httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {token}"})
        browser = sign_in(base, email)
        requests: dict[str, Callable[[], httpx.Response]] = {
            "problem list page (signed out)": lambda: anonymous.get("/problems"),
            "GET /api/v1/problems": lambda: api.get("/api/v1/problems"),
            "GET /api/v1/submissions?limit=50": lambda: api.get("/api/v1/submissions?limit=50"),
            "problem page (signed in)": lambda: browser.get(f"/problems/{slug}"),
            "account page (signed in)": lambda: browser.get("/account"),
        }
        total = 0
        for size in [0, *sizes]:
            if size > total:
                started = time.perf_counter()
                add_submissions(db, size - total, learners, rng)
                fill_s = time.perf_counter() - started
                total = size
            else:
                fill_s = 0.0
            with db.transaction() as session:
                mine = session.scalar(
                    select(func.count()).where(Submission.user_id == learners[len(learners) // 2])
                )
            print(
                f"  {label}: {size:>9,} submissions (filled in {fill_s:5.1f} s; "
                f"the measured learner has {mine})"
            )
            for name, call in requests.items():
                p50, p95 = measure(call, samples)
                rows.append((label, name, size, p50, p95))
        for client in (anonymous, api, browser):
            client.close()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        db.dispose()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.history", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="history sizes, comma-separated")
    parser.add_argument("--samples", type=int, default=30, help="requests per measurement")
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--postgres-url", default="", help="also run on a new database on this server")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    print(f"listings vs history: {args.learners} learners, sizes {sizes}, {args.samples} requests each")
    workdir = Path(tempfile.mkdtemp(prefix="torchdrill-bench-history-"))
    rows: list[tuple[Any, ...]] = []
    try:
        rows += run_backend(
            "SQLite", f"sqlite:///{workdir / 'history.db'}", sizes, args.samples, args.learners
        )
        if args.postgres_url:
            with postgres_database(args.postgres_url) as url:
                rows += run_backend("PostgreSQL", url, sizes, args.samples, args.learners)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report(rows, max(sizes))


def report(rows: list[tuple[Any, ...]], largest: int) -> int:
    sizes = sorted({r[2] for r in rows})
    print()
    header = f"{'backend':<11} {'request':<34}" + "".join(f"{f'{s:,}':>18}" for s in sizes)
    print(header + "   (p50 / p95 ms)")
    failures = []
    for backend, name in dict.fromkeys((r[0], r[1]) for r in rows):
        cells = {r[2]: (r[3], r[4]) for r in rows if r[0] == backend and r[1] == name}
        print(
            f"{backend:<11} {name:<34}"
            + "".join(f"{f'{p50:.1f} / {p95:.1f}':>18}" for p50, p95 in cells.values())
        )
        empty, big = cells[0][0], cells[largest][0]
        if big > 50:
            failures.append(f"{backend} {name}: p50 {big:.1f} ms at {largest:,} (target ≤ 50 ms)")
        if big > 3 * max(empty, 1.0):
            failures.append(f"{backend} {name}: p50 {big:.1f} ms is more than 3× the empty {empty:.1f} ms")
    print()
    for failure in failures:
        print(f"  [FAIL] {failure}")
    print("  [ok] every listing: p50 ≤ 50 ms at the largest size and ≤ 3× empty" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
