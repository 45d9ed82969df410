"""Keyset-paged lists against whole lists: the cost of one page as a list grows (issue #16, part 1).

On a throw-away database built by the migrations (SQLite, or ``--url`` PostgreSQL), with rows made
in bulk: one learner with ``--tokens`` live API tokens and ``--history`` submissions on one
problem; a course with ``--students`` students, ``--assignments`` assignments (two problems each)
and one submit per student and assignment. Then, interleaved (A, B, A, B ...) in this process,
each measured ``--samples`` times (p50 of wall and CPU time):

- tokens: the whole list (what ``GET /api/v1/auth/tokens`` read before) vs its first and a deep
  page of 50;
- gradebook: ``gradebook.build`` + JSON of every student (before) vs the first and a deep page of 50;
- assignments: a student's visible assignments with one problem query each (``GET
  /api/v1/courses/{id}`` before) vs the first and a deep page of 50;
- history: the problem page's old first 20 (created_at order) vs the first and a deep page.

    .venv/bin/python -m bench.lists [--url postgresql+psycopg://...] [--samples 15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text
from sqlalchemy.engine import make_url

from app.accounts import repository as accounts_repository
from app.accounts import tokens
from app.accounts.models import ApiToken, User
from app.courses import assignments, gradebook
from app.courses.models import (
    Assignment,
    AssignmentProblem,
    Course,
    CourseMember,
    EnrolmentPeriod,
    Extension,
)
from app.kit.db import Database, upgrade_database, utcnow
from app.problems.models import Problem, ProblemVersion
from app.submissions import repository as submissions_repository
from app.submissions import service as submissions
from app.submissions.models import Submission

PAGE = 50


def build(db: Database, args: argparse.Namespace) -> dict[str, int]:
    now = utcnow()
    with db.transaction() as session:
        problems = []
        for i in range(5):  # 0-3 in assignments; 4 holds the learner's long history only
            p = Problem(slug=f"bench-{i}", title=f"Bench {i}", difficulty="easy", category="bench")
            session.add(p)
            session.flush()
            v = ProblemVersion(problem_id=p.id, number=1, content_hash="x" * 64, files={}, expectations={})
            session.add(v)
            session.flush()
            p.current_version_id = v.id
            problems.append((p.id, v.id))
        users = [
            {"email": f"s{i:06d}@bench.example", "password_hash": "x", "role": "student"}
            for i in range(args.students)
        ]
        session.execute(insert(User), users)
        learner = session.scalars(select(User).where(User.email == "s000000@bench.example")).one()
        teacher = User(email="teacher@bench.example", password_hash="x", role="instructor")
        session.add(teacher)
        session.flush()
        course = Course(title="Bench", owner_id=teacher.id, join_code="BENCH123")
        session.add(course)
        session.flush()
        ids = list(session.scalars(select(User.id).where(User.email.like("s%@bench.example"))))
        session.execute(
            insert(CourseMember),
            [
                {"course_id": course.id, "user_id": uid, "role": "student", "section": f"S{uid % 4}"}
                for uid in ids
            ],
        )
        session.execute(  # enrolled before the assignments' release: every submission below is the course's
            insert(EnrolmentPeriod),
            [{"course_id": course.id, "user_id": uid, "joined_at": now - timedelta(days=61)} for uid in ids],
        )
        session.add(CourseMember(course_id=course.id, user_id=teacher.id, role="instructor"))
        made = []
        for a in range(args.assignments):
            row = Assignment(
                course_id=course.id,
                title=f"Week {a}",
                release_at=now - timedelta(days=60),
                due_at=now - timedelta(days=59 - a),
                late=[],
            )
            session.add(row)
            session.flush()
            for pos, (pid, _vid) in enumerate(problems[a % 3 : a % 3 + 2]):
                session.add(AssignmentProblem(assignment_id=row.id, problem_id=pid, position=pos))
            made.append(row.id)
        session.add(Extension(assignment_id=made[-1], user_id=learner.id, release_at=now + timedelta(days=1)))
        base = {
            "mode": "submit",
            "code": "x = 1\n",
            "status": "finished",
            "passed": 1,
            "total": 1,
            "cases": [],
        }
        rows = []
        for uid in ids:
            for a in range(min(args.assignments, 10)):
                pid, vid = problems[a % 3]
                verdict = "accepted" if (uid + a) % 3 else "wrong_answer"
                at = now - timedelta(days=59 - a, hours=1)
                rows.append(base | {"user_id": uid, "problem_id": pid, "problem_version_id": vid,
                                    "verdict": verdict, "created_at": at, "finished_at": at})  # fmt: skip
        pid, vid = problems[4]
        for i in range(args.history):
            at = now - timedelta(minutes=args.history - i)
            rows.append(base | {"user_id": learner.id, "problem_id": pid, "problem_version_id": vid,
                                "verdict": "accepted", "created_at": at, "finished_at": at})  # fmt: skip
        for start in range(0, len(rows), 20_000):
            session.execute(insert(Submission), rows[start : start + 20_000])
        minted = [
            {"user_id": learner.id, "name": "t", "token_hash": f"{i:064x}", "prefix": "td_",
             "created_at": now - timedelta(seconds=i)}
            for i in range(args.tokens)
        ]  # fmt: skip
        session.execute(insert(ApiToken), minted)
        return {"learner": learner.id, "course": course.id, "problem": problems[4][0]}


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a PostgreSQL URL (a database is created and dropped); default SQLite")
    parser.add_argument("--students", type=int, default=2000)
    parser.add_argument("--assignments", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--history", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=15)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-lists-"))
    drop: Callable[[], None] | None = None
    if args.url:
        from sqlalchemy import create_engine

        name = f"bench_lists_{os.getpid()}"
        admin = create_engine(args.url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(args.url).set(database=name).render_as_string(hide_password=False)

        def drop() -> None:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    else:
        url = f"sqlite:///{folder / 'bench.db'}"
    try:
        upgrade_database(url)
        db = Database(url)
        ids = build(db, args)
        if args.url:
            with db.transaction() as session:
                session.execute(text("ANALYZE"))
        cases = scenarios(db, ids)
        print(f"{'list':<44} {'p50 wall ms':>12} {'p50 CPU ms':>11}  (load average {os.getloadavg()[0]:.2f})")
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.samples):  # interleaved: every variant once per round
            for name, fn in cases.items():
                with db.transaction() as session:
                    results[name].append(timed(lambda f=fn, s=session: f(s)))  # type: ignore[misc]
        for name, values in results.items():
            wall = statistics.median(v[0] for v in values)
            cpu = statistics.median(v[1] for v in values)
            print(f"{name:<44} {wall:>12.2f} {cpu:>11.2f}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        db.dispose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if drop is not None:
            drop()
    return 0


def scenarios(db: Database, ids: dict[str, int]) -> dict[str, Callable[[Any], Any]]:
    with db.transaction() as session:
        learner = session.get(User, ids["learner"])
        course = session.get(Course, ids["course"])
        problem = session.get(Problem, ids["problem"])
        assert learner and course and problem
        every = accounts_repository.list_tokens(session, learner.id)
        deep_token = tokens_cursor(every[len(every) * 9 // 10])
        book = gradebook.build(session, course)
        deep_student = _cursor(
            (book.rows[len(book.rows) * 9 // 10].email, book.rows[len(book.rows) * 9 // 10].user_id)
        )
        listed = assignments.visible_assignments(session, course, learner, utcnow())
        deep_assignment = _cursor((listed[len(listed) * 9 // 10].due_at, listed[len(listed) * 9 // 10].id))
        history = submissions_repository.history_page(
            session, learner.id, problem.id, before_id=None, limit=10**9
        )
        deep_before = history[len(history) * 9 // 10].id
        for row in (learner, course, problem):
            session.expunge(row)

    def whole_assignments(s: Any) -> Any:
        rows = assignments.visible_assignments(s, course, learner, utcnow())
        return [[p.slug for p in assignments.assignment_problems(s, a)] for a in rows]

    def assignment_page(after: str | None) -> Callable[[Any], Any]:
        def run(s: Any) -> Any:
            page = assignments.page_of_visible(s, course, learner, utcnow(), after, PAGE)
            return assignments.problem_slugs(s, page.items)

        return run

    return {
        "tokens: whole list (before)": lambda s: list(accounts_repository.list_tokens(s, learner.id)),
        "tokens: first page of 50": lambda s: tokens.page_of_tokens(s, learner, None, PAGE),
        "tokens: page at 90%": lambda s: tokens.page_of_tokens(s, learner, deep_token, PAGE),
        "gradebook: every student (before)": lambda s: gradebook.as_json(gradebook.build(s, course)),
        "gradebook: first page of 50": lambda s: gradebook.as_json(gradebook.page(s, course, limit=PAGE)[0]),
        "gradebook: page at 90%": lambda s: gradebook.as_json(
            gradebook.page(s, course, after=deep_student, limit=PAGE)[0]
        ),
        "assignments (student): all (before)": whole_assignments,
        "assignments (student): first page of 50": assignment_page(None),
        "assignments (student): page at 90%": assignment_page(deep_assignment),
        "history: first page of 20": lambda s: submissions.history(s, learner, problem),
        "history: page at 90%": lambda s: submissions.history(s, learner, problem, before_id=deep_before),
    }  # fmt: skip


def _cursor(key: tuple[Any, ...]) -> str:
    from app.kit.paging import encode_cursor

    return encode_cursor(key)


def tokens_cursor(token: ApiToken) -> str:
    return _cursor(accounts_repository.token_key(token))


if __name__ == "__main__":
    raise SystemExit(main())
