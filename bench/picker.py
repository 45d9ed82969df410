"""``python -m bench.picker`` (``make bench``): what the problem picker costs an instructor.

On a throw-away SQLite database built by the migrations: ``--problems`` published problems (a
tenth of them course-only, spread over ten courses), one course whose instructor picks. Measured
``--samples`` times each (median):

- a search as the instructor types (``picker.search``: ``GET /courses/<id>/problem-choices?q=``,
  at most 20 answers), for a common word, a rare one and nothing typed;
- every choice at once (``picker.every_choice``: the no-script list on the course page and the
  assignment form, read on each render).

Targets: a search ≤ 25 ms, every choice ≤ 150 ms at 2,000 problems (the shipped bank has ~60).
Exit status 1 if missed.

    .venv/bin/python -m bench.picker [--problems 2000] [--samples 25]
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import insert, select, update

from app.accounts.models import User
from app.courses import picker
from app.courses.models import Course
from app.kit.db import Database, upgrade_database
from app.problems.models import Problem, ProblemVersion

SEARCH_MS = 25.0
EVERY_MS = 150.0
WORDS = ("tensor", "attention", "gradient", "loss", "broadcast", "module", "optimizer", "mask")


def build(db: Database, count: int) -> int:
    """The problems and the courses; returns the picking course's id."""
    with db.transaction() as session:
        owner = User(email="teacher@bench.example", password_hash="x", role="instructor")
        session.add(owner)
        session.flush()
        courses = []
        for i in range(10):
            course = Course(title=f"Bench {i}", owner_id=owner.id, join_code=f"BENCH{i:03d}")
            session.add(course)
            session.flush()
            courses.append(course.id)
        rows = []
        for i in range(count):
            word = WORDS[i % len(WORDS)]
            own = i % 10 == 0  # course-only, in one of the ten courses
            rows.append(
                {"slug": f"{word}-{i:05d}", "title": f"{word.title()} drill {i}",
                 "difficulty": ("easy", "medium", "hard")[i % 3], "category": WORDS[(i // 3) % len(WORDS)],
                 "premium": i % 7 == 0, "course_only": own,
                 "course_id": courses[(i // 10) % 10] if own else None}
            )  # fmt: skip
        session.execute(insert(Problem), rows)
        ids = list(session.scalars(select(Problem.id)))
        session.execute(
            insert(ProblemVersion),
            [{"problem_id": pid, "number": 1, "content_hash": "x" * 64, "files": {}, "expectations": {}}
             for pid in ids],
        )  # fmt: skip
        for pid, vid in session.execute(select(ProblemVersion.problem_id, ProblemVersion.id)).all():
            session.execute(update(Problem).where(Problem.id == pid).values(current_version_id=vid))
        return courses[0]


def median_ms(fn: Callable[[], object], samples: int) -> float:
    fn()  # warm: the statement compiled and cached
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=25)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-picker-"))
    try:
        url = f"sqlite:///{folder / 'bench.db'}"
        upgrade_database(url)
        db = Database(url)
        course_id = build(db, args.problems)
        missed = False
        with db.transaction() as session:
            course = session.get(Course, course_id)
            assert course is not None
            found = picker.every_choice(session, course)
            print(f"picker: {args.problems} problems, {len(found)} usable by the course")
            figures = []
            for q in ("tensor", "drill 1999", ""):
                ms = median_ms(functools.partial(picker.search, session, course, q), args.samples)
                figures.append((f"search {q!r}", ms, SEARCH_MS))
            every = median_ms(functools.partial(picker.every_choice, session, course), args.samples)
            figures.append(("every choice", every, EVERY_MS))
            for name, ms, target in figures:
                ok = ms <= target
                missed |= not ok
                print(f"  {name}: {ms:.1f} ms median (target ≤ {target:.0f} ms) [{'ok' if ok else 'FAIL'}]")
        db.dispose()
        return 1 if missed else 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
