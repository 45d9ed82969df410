"""``python -m bench.solutions_listing`` (``make bench``): a problem's solutions at 10,000.

For each backend (SQLite, and PostgreSQL with ``--postgres-url``), on a throw-away database built
by the migrations with the fixture bank imported and 1,000 learners:

1. one published solution on a problem (the "empty" state), measured;
2. then 10,000 solutions on that problem (tags, vote counts, some of the reader's votes) and
   10,000 comments (half of them on the measured solution), added in bulk through the models, and
   measured again.

Each measurement is ``--samples`` real HTTP requests to a real uvicorn server on 127.0.0.1, after
warm-up, by a learner who solved the problem: the solutions page (by votes, newest, one tag, and
the 10th page by votes), ``GET /api/v1/problems/{slug}/solutions`` (by votes, newest, one tag),
the measured solution's page (its first 100 comments) and ``GET /api/v1/solutions/{id}/comments``.

Targets (the listing targets of docs/benchmarks.md): p50 ≤ 50 ms at 10,000 and ≤ 3× the p50 of
the one-solution state, for each request. Exit status 1 if one is missed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert, select, text

from app.accounts import tokens
from app.accounts.models import User
from app.kit.db import Database, upgrade_database, utcnow
from app.kit.runner import default_runner
from app.kit.settings import Settings
from app.main import create_app
from app.problems.importer import import_bank
from app.problems.models import Problem
from app.progress.models import LearnerProblem
from app.solutions.models import Solution, SolutionComment, SolutionTag, SolutionVote
from bench.history import add_learners, measure, postgres_database, report, sign_in
from bench.web import free_port, start_server

ROOT = Path(__file__).resolve().parents[1]
BANK = ROOT / "tests" / "app" / "fixtures" / "bank"
SLUG = "add-tensors"
TAGS = ("broadcasting", "one-liner", "einsum", "loops", "in-place", "functional", "vectorised", "torch.add")
CODE = "import torch\n\n\ndef add(a, b):\n    return a + b\n"
WRITE_UP = (
    "Add element-wise: $c_i = a_i + b_i$. Broadcasting does the rest; **no loop**.\n\n```python\na + b\n```\n"
)
CHUNK = 5_000


def add_solutions(
    db: Database, problem_id: int, learners: list[int], count: int, rng: random.Random
) -> list[int]:
    now = utcnow()
    with db.transaction() as session:
        first = int(session.scalar(select(Solution.id).order_by(Solution.id.desc()).limit(1)) or 0)
    for start in range(0, count, CHUNK):
        n = min(CHUNK, count - start)
        rows = [{"problem_id": problem_id, "author_id": rng.choice(learners), "submission_id": None,
                 "title": f"Way {start + i}", "code": CODE, "write_up": WRITE_UP,
                 "votes": int(rng.paretovariate(1.5)) - 1, "comments": 0,
                 "created_at": now - timedelta(seconds=rng.uniform(0, 90 * 86400))}
                for i in range(n)]  # fmt: skip
        with db.transaction() as session:
            session.execute(insert(Solution), rows)
    with db.transaction() as session:
        ids = list(session.scalars(select(Solution.id).where(Solution.id > first).order_by(Solution.id)))
        tags = [{"solution_id": sid, "tag": tag, "problem_id": problem_id, "shown": True}
                for sid in ids for tag in rng.sample(TAGS, rng.choice((1, 1, 2)))]  # fmt: skip
        session.execute(insert(SolutionTag), tags)
    return ids


def add_comments(db: Database, solution_ids: list[int], target: int, learners: list[int], count: int,
                 rng: random.Random) -> None:  # fmt: skip
    now = utcnow()
    per: dict[int, int] = {}
    rows = []
    for i in range(count):
        sid = target if i % 2 == 0 else rng.choice(solution_ids)
        per[sid] = per.get(sid, 0) + 1
        body = f"Comment {i}: why `a + b`?"
        rows.append({"solution_id": sid, "author_id": rng.choice(learners), "body": body,
                     "created_at": now - timedelta(seconds=count - i)})  # fmt: skip
    with db.transaction() as session:
        for start in range(0, len(rows), CHUNK):
            session.execute(insert(SolutionComment), rows[start : start + CHUNK])
        for sid, n in per.items():  # the maintained count, as posting would have kept it
            solution = session.get(Solution, sid)
            assert solution is not None
            solution.comments += n


def run_backend(label: str, url: str, samples: int, learners_n: int, size: int) -> list[tuple[Any, ...]]:
    upgrade_database(url)
    db = Database(url)
    runner = default_runner()
    settings = Settings(env="development", database_url=url, api_requests_per_minute=1_000_000)
    with db.transaction() as session:
        imported = import_bank(session, BANK, runner)
        if not imported.ok:
            raise SystemExit(f"error: import failed: {imported.summary()}")
        problem = session.scalars(select(Problem).where(Problem.slug == SLUG)).one()
        problem_id = problem.id
    learners = add_learners(db, learners_n)
    reader_id = learners[len(learners) // 2]
    now = utcnow()
    with db.transaction() as session:
        session.add(LearnerProblem(user_id=reader_id, problem_id=problem_id, submissions=1, solved_at=now,
                                   last_submitted_at=now))  # fmt: skip
        me = session.get(User, reader_id)
        assert me is not None
        _row, token = tokens.create_token(session, me, "bench", now)
        email = me.email
    rng = random.Random(20261206)
    target = add_solutions(db, problem_id, [learners[0]], 1, rng)[0]
    port = free_port()
    server, thread = start_server(create_app(settings, database=db, runner=runner), port)
    base = f"http://127.0.0.1:{port}"
    rows: list[tuple[Any, ...]] = []
    try:
        api = httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {token}"})
        browser = sign_in(base, email)
        tenth: dict[str, str] = {}

        def deep_page() -> httpx.Response:
            if "url" not in tenth:
                url = f"/api/v1/problems/{SLUG}/solutions?limit=20"
                for _ in range(9):
                    url = api.get(url).json()["next"] or url
                tenth["url"] = url.replace(
                    f"/api/v1/problems/{SLUG}/solutions", f"/problems/{SLUG}/solutions"
                )
            return browser.get(tenth["url"])

        requests: dict[str, Callable[[], httpx.Response]] = {
            "solutions page (votes)": lambda: browser.get(f"/problems/{SLUG}/solutions"),
            "solutions page (newest)": lambda: browser.get(f"/problems/{SLUG}/solutions?sort=newest"),
            "solutions page (one tag)": lambda: browser.get(f"/problems/{SLUG}/solutions?tag=einsum"),
            "solutions page 10 (votes)": deep_page,
            "GET …/solutions (votes)": lambda: api.get(f"/api/v1/problems/{SLUG}/solutions"),
            "GET …/solutions?sort=newest": lambda: api.get(f"/api/v1/problems/{SLUG}/solutions?sort=newest"),
            "GET …/solutions?tag=einsum": lambda: api.get(f"/api/v1/problems/{SLUG}/solutions?tag=einsum"),
            "solution page (100 comments)": lambda: browser.get(f"/solutions/{target}"),
            "GET /solutions/{id}/comments": lambda: api.get(f"/api/v1/solutions/{target}/comments"),
        }
        for state in (1, size):
            if state > 1:
                started = time.perf_counter()
                ids = add_solutions(db, problem_id, learners, size - 1, rng)
                add_comments(db, ids, target, learners, size, rng)
                with db.transaction() as session:  # some of the reader's votes (the "voted" marks)
                    votes = [
                        {"solution_id": sid, "user_id": reader_id, "created_at": now} for sid in ids[::50]
                    ]
                    session.execute(insert(SolutionVote), votes)
                if db.engine.dialect.name == "postgresql":  # what autovacuum does after a bulk load
                    with db.engine.connect() as conn:
                        conn.execute(text("ANALYZE"))
                        conn.commit()
                tenth.clear()
                print(f"  {label}: {size:,} solutions and {size:,} comments added in "
                      f"{time.perf_counter() - started:.1f} s")  # fmt: skip
            for name, call in requests.items():
                p50, p95 = measure(call, samples)
                rows.append((label, name, 0 if state == 1 else size, p50, p95))
        api.close()
        browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        db.dispose()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.solutions_listing",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    parser.add_argument("--size", type=int, default=10_000, help="solutions (and comments) on the problem")
    parser.add_argument("--samples", type=int, default=30, help="requests per measurement")
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--postgres-url", default="", help="also run on a new database on this server")
    args = parser.parse_args(argv)
    print(f"solutions listings: {args.size:,} solutions and comments, {args.samples} requests each "
          "(column 0: one solution)")  # fmt: skip
    workdir = Path(tempfile.mkdtemp(prefix="torchdrill-bench-solutions-"))
    rows: list[tuple[Any, ...]] = []
    try:
        rows += run_backend("SQLite", f"sqlite:///{workdir / 'solutions.db'}", args.samples, args.learners,
                            args.size)  # fmt: skip
        if args.postgres_url:
            with postgres_database(args.postgres_url) as url:
                rows += run_backend("PostgreSQL", url, args.samples, args.learners, args.size)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report(rows, args.size)


if __name__ == "__main__":
    raise SystemExit(main())
