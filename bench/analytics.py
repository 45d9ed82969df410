"""``python -m bench.analytics`` (``make bench``): an instructor's analytics for a 1,000-student course.

For each database backend (SQLite, and PostgreSQL when ``--postgres-url`` is given), on a
throw-away database built by the migrations with the real problem bank imported:

1. a course with ``--students`` enrolled students and an assignment of five problems;
2. measure the analytics pages and API on the empty class;
3. add realistic work in bulk through the ``Submission`` model: most students attempt each problem,
   runs before Submits, a few to fifteen Submits each with per-case failures of every kind (shape,
   dtype, values, rules, exceptions, time), most eventually solving, some stuck; fill the
   maintained state with the product's own rebuild (``app.analytics.state.rebuild``: exactly what
   recording the verdicts one by one writes), and measure again;
4. the cost of a changed window, where the change is made: the instructor's edit moving the due
   date a day later (no student's counted work changes: their rows are kept), to two days ago and
   back (the rows whose counted work changes are recomputed in its transaction), one student's
   extension, and the next read (which recomputes nothing), without a target;
5. the verdict path's cost: the analytics listener for a new failed verdict of a course student
   (the increment against the recompute it replaced, timed in pairs in the same run, alternating,
   with their statement counts), and for a learner in no course (the judging path of everybody
   else), median of ``--verdicts`` calls.

Each measurement is ``--samples`` real HTTP requests to a real uvicorn server on 127.0.0.1 after
warm-up: the assignment's analytics page and one problem's (the instructor signed in), and their
two ``/api/v1`` routes (bearer token, scope ``teach``).

Targets (the listings' of ``docs/benchmarks.md``): p50 ≤ 50 ms with the whole class's work, and
≤ 3× the empty class's p50, for each request. Exit status 1 if one is missed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import event, insert, select, text

from app.accounts import tokens
from app.accounts.models import User
from app.analytics import state
from app.analytics.service import assignment_analytics
from app.courses import assignments, enrolment
from app.courses.models import Assignment, Course, CourseMember, EnrolmentPeriod
from app.kit.db import Database, upgrade_database, utcnow
from app.kit.runner import default_runner
from app.kit.security import hash_password
from app.kit.settings import Settings
from app.main import create_app
from app.problems.importer import import_bank
from app.problems.models import Problem
from app.submissions.models import Submission
from bench.history import PASSWORD, measure, postgres_database, sign_in
from bench.web import free_port, start_server

ROOT = Path(__file__).resolve().parents[1]
CASES = ("example", "batch_of_one", "broadcast", "large_values", "empty_dim", "mixed_dtype")
KINDS = ("shape", "dtype", "values", "rule", "exception", "time_limit")
KIND_WEIGHTS = (20, 10, 40, 15, 12, 3)


def setup_class(db: Database, students: int) -> tuple[int, int, str, list[int], list[int]]:
    """(course id, assignment id, instructor email, student ids, problem ids)."""
    password_hash = hash_password(PASSWORD)
    now = utcnow()
    with db.transaction() as session:
        teacher = User(
            email="teacher@bench.example", password_hash=password_hash, role="instructor", created_at=now
        )
        session.add(teacher)
        session.flush()
        course = enrolment.create_course(session, teacher, "Deep learning", timezone="Europe/Paris")
        slugs = list(
            session.scalars(
                select(Problem.slug).where(Problem.premium.is_(False)).order_by(Problem.id).limit(5)
            )
        )
        assignment = assignments.create_assignment(
            session, course, title="Week 3", problem_slugs=slugs,
            release_at=(now - timedelta(days=14)).isoformat(), due_at=(now + timedelta(days=7)).isoformat(),
        )  # fmt: skip
        rows = [{"email": f"student{i}@bench.example", "password_hash": password_hash, "role": "student",
                 "created_at": now} for i in range(students)]  # fmt: skip
        session.execute(insert(User), rows)
        ids = list(
            session.scalars(
                select(User.id).where(User.email.like("student%@bench.example")).order_by(User.id)
            )
        )
        joined = now - timedelta(days=15)
        session.execute(insert(CourseMember), [
            {"course_id": course.id, "user_id": u, "role": "student", "status": "active",
             "section": f"S{u % 4}",
             "created_at": joined} for u in ids])  # fmt: skip
        session.execute(
            insert(EnrolmentPeriod),
            [{"course_id": course.id, "user_id": u, "joined_at": joined} for u in ids],
        )
        problem_ids = [link.problem_id for link in assignment.problems]
        return course.id, assignment.id, teacher.email, ids, problem_ids


def _cases(rng: random.Random, failing: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    bad = set(rng.sample(range(1, len(CASES)), failing))
    for i, name in enumerate(CASES):
        if i not in bad:
            out.append({"name": name, "public": i == 0, "status": "passed", "message": "", "time_ms": 0.4})
            continue
        kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
        failure: dict[str, Any] = {"kind": kind, "title": kind}
        if kind == "rule":
            failure |= {
                "rule": rng.choice(("no-loops", "no-copy")),
                "sentence": "Do not loop.",
                "property": "operations",
            }
        out.append({"name": name, "public": False, "status": "failed", "time_ms": 0.5, "failure": failure,
                    "message": f"{kind}: the value differs from the reference's here."})  # fmt: skip
    return out


def add_work(db: Database, students: list[int], problems: list[int], rng: random.Random) -> int:
    """Each student's runs and Submits on each problem; returns how many submissions."""
    with db.transaction() as session:
        versions = {
            p.id: p.current_version_id
            for p in session.scalars(select(Problem).where(Problem.id.in_(problems)))
        }
    start = utcnow() - timedelta(days=13)
    rows: list[dict[str, Any]] = []
    for user_id in students:
        for problem_id in problems:
            if rng.random() < 0.12:
                continue  # not started
            at = start + timedelta(days=rng.uniform(0, 12))
            solves = rng.random() < 0.8
            attempts = rng.randint(1, 6) if solves else rng.randint(2, 15)
            failing = rng.randint(1, 4)
            plan = [("run", None)] * rng.randint(0, 3) + [("submit", "wrong_answer")] * (
                attempts - int(solves)
            )
            plan += [("submit", "accepted")] if solves else []
            for mode, verdict in plan:
                at += timedelta(minutes=rng.uniform(0.5, 25))
                accepted = verdict == "accepted"
                if mode == "submit" and not accepted:
                    failing = max(1, failing - (1 if rng.random() < 0.4 else 0))
                cases = [] if accepted or mode == "run" else _cases(rng, failing)
                rows.append({
                    "user_id": user_id, "problem_id": problem_id, "problem_version_id": versions[problem_id],
                    "mode": mode, "code": "def solution():\n    pass\n", "status": "finished",
                    "verdict": verdict or "accepted", "passed": len(CASES) - (0 if accepted else failing),
                    "total": len(CASES), "cases": cases, "message": "", "time_ms": 25.0, "runtime": {},
                    "created_at": at, "started_at": at, "finished_at": at,
                })  # fmt: skip
    for i in range(0, len(rows), 10_000):
        with db.transaction() as session:
            session.execute(insert(Submission), rows[i : i + 10_000])
    return len(rows)


def _counting(db: Database) -> list[int]:
    """A one-cell counter of the statements the engine executes (the listener's, while timed)."""
    count = [0]

    def before(*_args: Any) -> None:
        count[0] += 1

    event.listen(db.engine, "before_cursor_execute", before)
    return count


def listener_cost(db: Database, user_id: int, problem_id: int, verdicts: int) -> dict[str, tuple[float, int]]:
    """The analytics listener for a new failed verdict of ``user_id`` on ``problem_id`` (later than
    all their work): ``{path: (median µs, statements)}``, for the increment (``recorded``) and the
    recompute it replaced (``reopened``: the student's rows on the problem summarised again), timed
    in pairs, alternating which runs first, each in a savepoint rolled back."""
    counter = _counting(db)
    with db.transaction() as session:
        version = session.get(Problem, problem_id).current_version_id  # type: ignore[union-attr]
        at = utcnow()
        cases = [{"name": "example", "public": True, "status": "passed"},
                 {"name": "batch_of_one", "public": False, "status": "failed",
                  "failure": {"kind": "shape", "title": "shape"}},
                 {"name": "broadcast", "public": False, "status": "failed",
                  "failure": {"kind": "rule", "rule": "no-loops", "title": "rule"}}]  # fmt: skip
        submission = Submission(user_id=user_id, problem_id=problem_id, problem_version_id=version,
                                mode="submit", code="", status="finished", verdict="wrong_answer", passed=1,
                                total=3, cases=cases, created_at=at, finished_at=at)  # fmt: skip
        session.add(submission)
        session.flush()
        paths = {"increment": state.LISTENER.recorded, "recompute": state.LISTENER.reopened}
        times: dict[str, list[float]] = {name: [] for name in paths}
        statements: dict[str, int] = {}
        for i in range(verdicts):
            for name in sorted(paths, reverse=i % 2 == 1):
                nested = session.begin_nested()
                before = counter[0]
                started = time.perf_counter()
                paths[name](session, submission)
                times[name].append((time.perf_counter() - started) * 1e6)
                statements[name] = counter[0] - before
                nested.rollback()
        session.rollback()
    return {name: (statistics.median(t), statements[name]) for name, t in times.items()}


def _edit_due(db: Database, course_id: int, assignment_id: int, due: Any = None) -> float:
    """Ms of the instructor's edit moving the due date to ``due`` (None: a day later; the service,
    in one transaction)."""
    started = time.perf_counter()
    with db.transaction() as session:
        course, assignment = session.get(Course, course_id), session.get(Assignment, assignment_id)
        assert course is not None and assignment is not None
        checked = assignments.check_fields(
            session, course, title=assignment.title,
            problem_slugs=[p.slug for p in assignments.assignment_problems(session, assignment)],
            release_at=assignment.release_at.isoformat(),
            due_at=(due or assignment.due_at + timedelta(days=1)).isoformat(), late=assignment.late,
            after_last=assignment.after_last,
        )  # fmt: skip
        assignments.update_assignment(session, assignment, checked)
    return (time.perf_counter() - started) * 1000


def _extend(db: Database, assignment_id: int, user_id: int) -> float:
    """Ms of one student's extension (the service, in one transaction)."""
    started = time.perf_counter()
    with db.transaction() as session:
        assignment = session.get(Assignment, assignment_id)
        assert assignment is not None
        assignments.set_extension(
            session, assignment, user_id, due_at=(assignment.due_at + timedelta(days=2)).isoformat()
        )
    return (time.perf_counter() - started) * 1000


def run_backend(
    label: str, url: str, students: int, samples: int, verdicts: int
) -> tuple[list[tuple[Any, ...]], list[str]]:
    upgrade_database(url)
    db = Database(url)
    runner = default_runner()
    settings = Settings(env="development", database_url=url, api_requests_per_minute=1_000_000)
    with db.transaction() as session:
        report = import_bank(session, ROOT / "problems", runner)
        if not report.ok:  # e.g. a reference timing out on a saturated machine: five problems are enough
            print(f"  warning: the bank imported in part: {report.summary()}")
    course_id, assignment_id, email, ids, problems = setup_class(db, students)
    with db.transaction() as session:
        teacher = session.scalars(select(User).where(User.email == email)).one()
        token = tokens.create_token(session, teacher, "bench", utcnow(), scopes=["teach"])[1]
        slug = session.get(Problem, problems[2]).slug  # type: ignore[union-attr]
    port = free_port()
    server, thread = start_server(create_app(settings, database=db, runner=runner), port)
    base = f"http://127.0.0.1:{port}"
    rows: list[tuple[Any, ...]] = []
    notes: list[str] = []
    here = f"/courses/{course_id}/assignments/{assignment_id}/analytics"
    try:
        api = httpx.Client(base_url=base, timeout=120, headers={"Authorization": f"Bearer {token}"})
        browser = sign_in(base, email)
        requests = {
            "assignment analytics page": lambda: browser.get(here),
            "problem analytics page": lambda: browser.get(f"{here}/{slug}"),
            "GET …/analytics (API)": lambda: api.get(f"/api/v1{here}"),
            "GET …/analytics/{slug} (API)": lambda: api.get(f"/api/v1{here}/{slug}"),
        }
        for phase in ("empty class", "whole class"):
            if phase == "whole class":
                started = time.perf_counter()
                count = add_work(db, ids, problems, random.Random(20261206))
                with db.transaction() as session:
                    state.rebuild(session)
                # Statistics for the planner, as autovacuum gathers them after a bulk load (without
                # them PostgreSQL joins the class's rows by a plan ~15x slower).
                with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                    conn.execute(text("ANALYZE"))
                notes.append(
                    f"{label}: {count:,} submissions, filled and rebuilt in "
                    f"{time.perf_counter() - started:.1f} s"
                )
            for name, call in requests.items():
                p50, p95 = measure(call, samples)
                rows.append((label, name, phase, p50, p95))
        # Changes of the course's work are applied where they are made (app.courses.work_changes).
        # The class's rows whose counted work a move changes are recomputed in the edit's transaction.
        with db.transaction() as session:
            due = session.get(Assignment, assignment_id).due_at  # type: ignore[union-attr]
        later = _edit_due(db, course_id, assignment_id)
        cut = _edit_due(db, course_id, assignment_id, utcnow() - timedelta(days=2))
        back = _edit_due(db, course_id, assignment_id, due)
        extension = _extend(db, assignment_id, ids[len(ids) // 3])
        notes.append(f"{label}: the due date moves a day later (no student's work changes): {later:,.0f} ms; "
                     f"to 2 days ago (cuts the last days' work) and back: {cut:,.0f} / {back:,.0f} ms; "
                     f"an extension (one student): {extension:,.0f} ms")  # fmt: skip
        started = time.perf_counter()
        with db.transaction() as session:
            course, assignment = session.get(Course, course_id), session.get(Assignment, assignment_id)
            assert course is not None and assignment is not None
            assignment_analytics(session, course, assignment)
        notes.append(f"{label}: the next read (recomputes nothing): "
                     f"{(time.perf_counter() - started) * 1000:,.0f} ms")  # fmt: skip
        with db.transaction() as session:
            outsider = User(
                email="practice@bench.example", password_hash="x", role="student", created_at=utcnow()
            )
            session.add(outsider)
            session.flush()
            version = session.get(Problem, problems[0]).current_version_id  # type: ignore[union-attr]
            at = utcnow()
            session.add(Submission(user_id=outsider.id, problem_id=problems[0], problem_version_id=version,
                                   mode="submit", code="", status="finished", verdict="accepted", passed=6,
                                   total=6, cases=[], created_at=at, finished_at=at))  # fmt: skip
            outsider_id = outsider.id
        student = listener_cost(db, ids[len(ids) // 2], problems[0], verdicts)
        practice = listener_cost(db, outsider_id, problems[0], verdicts)
        (inc_us, inc_n), (full_us, full_n) = student["increment"], student["recompute"]
        out_us, out_n = practice["increment"]
        notes.append(f"{label}: the listener per failed verdict of a course student (paired, median of "
                     f"{verdicts}): increment {inc_us:,.0f} µs / {inc_n} statements, the recompute it "
                     f"replaced {full_us:,.0f} µs / {full_n} statements; a learner in no course "
                     f"{out_us:,.0f} µs / {out_n} statement(s)")  # fmt: skip
        for client in (api, browser):
            client.close()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        db.dispose()
    return rows, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.analytics", description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=30, help="requests per measurement")
    parser.add_argument("--verdicts", type=int, default=200, help="listener calls timed")
    parser.add_argument("--postgres-url", default="", help="also run on a new database on this server")
    args = parser.parse_args(argv)
    print(f"course analytics: {args.students} students, {args.samples} requests each")
    workdir = Path(tempfile.mkdtemp(prefix="torchdrill-bench-analytics-"))
    rows: list[tuple[Any, ...]] = []
    notes: list[str] = []
    try:
        more, said = run_backend(
            "SQLite", f"sqlite:///{workdir / 'analytics.db'}", args.students, args.samples, args.verdicts
        )
        rows, notes = rows + more, notes + said
        if args.postgres_url:
            with postgres_database(args.postgres_url) as url:
                more, said = run_backend("PostgreSQL", url, args.students, args.samples, args.verdicts)
                rows, notes = rows + more, notes + said
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report(rows, notes)


def report(rows: list[tuple[Any, ...]], notes: list[str]) -> int:
    print()
    print(f"{'backend':<11} {'request':<32}{'empty class':>18}{'whole class':>18}   (p50 / p95 ms)")
    failures = []
    for backend, name in dict.fromkeys((r[0], r[1]) for r in rows):
        cells = {r[2]: (r[3], r[4]) for r in rows if r[0] == backend and r[1] == name}
        print(f"{backend:<11} {name:<32}" + "".join(f"{f'{a:.1f} / {b:.1f}':>18}" for a, b in cells.values()))
        empty, full = cells["empty class"][0], cells["whole class"][0]
        if full > 50:
            failures.append(f"{backend} {name}: p50 {full:.1f} ms with the whole class (target ≤ 50 ms)")
        if full > 3 * max(empty, 1.0):
            failures.append(
                f"{backend} {name}: p50 {full:.1f} ms is more than 3× the empty class's {empty:.1f} ms"
            )
    print()
    for note in notes:
        print(f"  {note}")
    for failure in failures:
        print(f"  [FAIL] {failure}")
    print(
        "  [ok] every analytics request: p50 ≤ 50 ms with the whole class and ≤ 3× empty"
        if not failures
        else ""
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
