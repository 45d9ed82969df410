"""``python -m bench.discussion_listing`` (``make bench``): a problem's discussion at 10,000 posts.

For each database backend (SQLite, and PostgreSQL when ``--postgres-url`` is given), on a
throw-away database built by the migrations with the tests' small bank imported (the discussion does
not depend on what a problem holds, and its three problems import in seconds): 200 writers;
then one problem's discussion grows to ``--posts`` threads (votes spread, 5% hidden by a moderator,
2% deleted by their authors) with as many replies again over them, inserted in bulk through the
models with their maintained counts, and a report on each thread (one in ten still open, the rest answered).

Each measurement is ``--samples`` real HTTP requests to a real uvicorn server on 127.0.0.1, after
warm-up, at an empty discussion and at full size: the thread list by newest and by votes through
the API (first page and a page deep in the list, by its cursor), the thread list page and the
problem page (its Discussion count), a thread with 1,000 replies (its page and the API, each the
first page of its replies), and an admin's moderation queue (API; on PostgreSQL the plans of its
statements are printed with EXPLAIN ANALYZE).

Targets (the listing targets of ``bench.history``): p50 ≤ 50 ms at full size and ≤ 3× the empty
discussion's p50, for each listing. Exit status 1 if one is missed.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import event, insert, select, text, update

from app.accounts import tokens
from app.accounts.models import User
from app.discussion.models import Reply, Thread
from app.kit.db import Database, upgrade_database, utcnow
from app.kit.runner import default_runner
from app.kit.settings import Settings
from app.main import create_app
from app.moderation.models import ModerationReport
from app.problems.importer import import_bank
from app.problems.models import Problem
from bench.history import add_learners, measure, postgres_database, sign_in
from bench.web import free_port, start_server

ROOT = Path(__file__).resolve().parents[1]
BANK = ROOT / "tests" / "app" / "fixtures" / "bank"
TARGET_MS = 50.0
TARGET_RATIO = 3.0
CHUNK = 5_000
BUSY_REPLIES = 1_000  # the busiest thread's replies (its page shows the first 50)


def grow(db: Database, problem_id: int, writers: list[int], posts: int, rng: random.Random) -> int:
    """``posts`` threads and as many replies on one problem; returns the busiest visible thread."""
    now = utcnow()
    for start in range(0, posts, CHUNK):
        rows: list[dict[str, Any]] = []
        for i in range(start, min(posts, start + CHUNK)):
            at = now - timedelta(seconds=(posts - i) * 60)
            roll = rng.random()
            rows.append({
                "problem_id": problem_id, "author_id": rng.choice(writers), "title": f"Question {i}",
                "body": f"Why does my code fail case {i}?\n\n```python\nx = {i}\n```\n",
                "votes": int(rng.paretovariate(1.5)) - 1, "reply_count": 0, "created_at": at,
                "hidden_at": at if roll < 0.05 else None, "deleted_at": at if 0.05 <= roll < 0.07 else None,
            })  # fmt: skip
        with db.transaction() as session:
            session.execute(insert(Thread), rows)
    with db.transaction() as session:
        ids = list(
            session.scalars(select(Thread.id).where(Thread.problem_id == problem_id).order_by(Thread.id))
        )
        visible = list(session.scalars(select(Thread.id).where(
            Thread.problem_id == problem_id, Thread.hidden_at.is_(None), Thread.deleted_at.is_(None)
        ).order_by(Thread.id)))  # fmt: skip
    busiest = visible[len(visible) // 2]
    counts: dict[int, int] = {}
    replies: list[dict[str, Any]] = []
    for i in range(posts):
        thread = busiest if i < BUSY_REPLIES else rng.choice(ids)
        hidden = rng.random() < 0.05
        counts[thread] = counts.get(thread, 0) + (0 if hidden else 1)
        replies.append({"thread_id": thread, "author_id": rng.choice(writers), "body": f"Try this ({i}).",
                        "votes": 0, "created_at": now, "hidden_at": now if hidden else None})  # fmt: skip
    with db.transaction() as session:
        for start in range(0, len(replies), CHUNK):
            session.execute(insert(Reply), replies[start : start + CHUNK])
        for thread, n in counts.items():
            session.execute(update(Thread).where(Thread.id == thread).values(reply_count=n))
        # A mature queue: reports on one post in ten still open, the rest answered (hidden or
        # dismissed), spread over the whole history, so the open ones are a thin slice of the table.
        session.execute(insert(ModerationReport), [
            {"kind": "thread", "target_id": ids[i], "problem_id": problem_id, "reporter_id": writers[0],
             "reason": "Spam?", "status": "open" if i % 10 == 0 else ("hidden", "dismissed")[i % 2],
             "created_at": now}
            for i in range(len(ids))
        ])  # fmt: skip
    if db.engine.dialect.name == "postgresql":
        # What autovacuum does after a bulk insert (it would within a minute): statistics and the
        # visibility map, without which the planner guesses and no index-only scan is possible.
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            for table in ("discussion_threads", "discussion_replies", "moderation_reports"):
                conn.execute(text(f"VACUUM ANALYZE {table}"))
    return busiest


def explain(db: Database, call: Callable[[], httpx.Response], name: str) -> None:
    """Print EXPLAIN ANALYZE of every statement one request runs (PostgreSQL): where its time goes."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        call()
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    print(f"\n  EXPLAIN ANALYZE of {name} ({len(seen)} statements):")
    with db.engine.connect() as conn:
        for statement, parameters in seen:
            plan = conn.exec_driver_sql(f"EXPLAIN ANALYZE {statement}", parameters).scalars().all()
            print("    " + statement.split("FROM")[-1].split("WHERE")[0].strip()[:60])
            print("\n".join(f"      {line}" for line in plan))


def run_backend(label: str, url: str, posts: int, samples: int) -> list[tuple[str, float, float, float]]:
    upgrade_database(url)
    db = Database(url)
    runner = default_runner()
    settings = Settings(env="development", database_url=url, api_requests_per_minute=1_000_000)
    with db.transaction() as session:
        report = import_bank(session, BANK, runner)
        if not report.ok:
            raise SystemExit(f"error: import failed: {report.summary()}")
        problem = session.scalars(
            select(Problem).where(Problem.premium.is_(False)).order_by(Problem.id)
        ).first()
        assert problem is not None
        slug, problem_id = problem.slug, problem.id
    writers = add_learners(db, 200)
    with db.transaction() as session:
        me = session.get(User, writers[0])
        assert me is not None
        me.role = "admin"
        _row, token = tokens.create_token(session, me, "bench", utcnow())
        email = me.email
    port = free_port()
    server, thread = start_server(create_app(settings, database=db, runner=runner), port)
    base = f"http://127.0.0.1:{port}"
    results: dict[str, list[float]] = {}
    try:
        api = httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {token}"})
        browser = sign_in(base, email)
        listing = f"/api/v1/problems/{slug}/threads"

        def deep(sort: str) -> Callable[[], httpx.Response]:
            url: str | None = f"{listing}?sort={sort}&limit=30"
            for _ in range(20):  # the 21st page's link, found once
                answer = api.get(url or "")
                url = answer.json()["next"] or url
            return lambda: api.get(url or "")

        busiest = 0
        for size in (0, posts):
            if size:
                started = time.perf_counter()
                busiest = grow(db, problem_id, writers, size, random.Random(20261206))
                print(
                    f"[{label}] grew to {size:,} threads and replies in {time.perf_counter() - started:.1f} s"
                )
            else:
                with db.transaction() as session:
                    seed = Thread(problem_id=problem_id, author_id=writers[1], title="Seed", body="Seed",
                                  votes=0, reply_count=0, created_at=utcnow())  # fmt: skip
                    session.add(seed)
                    session.flush()
                    busiest = seed.id
            thread_url = f"/discussion/threads/{busiest}"
            calls: dict[str, Callable[[], httpx.Response]] = {
                "API threads, newest, page 1": lambda: api.get(f"{listing}?limit=30"),
                "API threads, by votes, page 1": lambda: api.get(f"{listing}?sort=votes&limit=30"),
                "thread list page": lambda: browser.get(f"/problems/{slug}/discussion"),
                "problem page (its Discussion count)": lambda: browser.get(f"/problems/{slug}"),
                "thread page (1,000 replies at size)": functools.partial(browser.get, thread_url),
                "API thread (1,000 replies at size)": functools.partial(
                    api.get, f"/api/v1/threads/{busiest}"
                ),
                "API moderation queue": lambda: api.get("/api/v1/moderation/reports?limit=50"),
            }
            if size:
                calls["API threads, newest, page 21"] = deep("newest")
                calls["API threads, by votes, page 21"] = deep("votes")
            if size and db.engine.dialect.name == "postgresql":
                explain(db, calls["API moderation queue"], "the moderation queue")
            for name, call in calls.items():
                p50, _p95 = measure(call, samples)
                results.setdefault(name, []).append(p50)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        db.dispose()
    rows = []
    for name, values in results.items():
        empty = values[0] if len(values) == 2 else results["API threads, newest, page 1"][0]
        rows.append((name, empty, values[-1], values[-1] / empty if empty else 0.0))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--postgres-url", default=None)
    args = parser.parse_args()
    import tempfile

    failed = False
    backends: list[tuple[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        backends.append(("SQLite", f"sqlite:///{folder}/bench.db"))
        for label, url in backends:
            failed |= report(label, run_backend(label, url, args.posts, args.samples))
    if args.postgres_url:
        with postgres_database(args.postgres_url) as url:
            failed |= report("PostgreSQL", run_backend("PostgreSQL", url, args.posts, args.samples))
    sys.exit(1 if failed else 0)


def report(label: str, rows: list[tuple[str, float, float, float]]) -> bool:
    print(f"\n{label}: p50 in ms, empty → full (target ≤ {TARGET_MS:g} ms, ≤ {TARGET_RATIO:g}×)")
    failed = False
    for name, empty, full, ratio in rows:
        ok = full <= TARGET_MS and ratio <= TARGET_RATIO
        failed |= not ok
        print(f"  [{'ok' if ok else 'FAIL'}] {name:40s} {empty:7.1f} → {full:7.1f}  ({ratio:.1f}×)")
    return failed


if __name__ == "__main__":
    main()
