"""``python -m bench.lti`` (``make bench``): what LTI adds, per verdict and per launch.

- **The judging path**: every recorded verdict now also calls the passback worker's listener
  (``PassbackWorker.on_verdict``: a deque append and an event set, in the judge's thread; the
  database work happens in the worker's own thread). Target ≤ 20 µs a verdict.
- **Marking** a verdict's line items in a 500-student course linked to an LMS (the worker's
  query and upsert, SQLite): target ≤ 20 ms median.
- **A launch's token check**: the id_token's RS256 signature and claims (joserfc), keys cached.
  Target ≤ 5 ms median.
Exit status 1 if a target is missed. Run from the repository root (it makes a scratch database).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from app.accounts.models import User
from app.courses.models import Assignment, AssignmentProblem, Course, CourseMember
from app.kit.db import Database, upgrade_database, utcnow
from app.lti import passback
from app.lti.models import LtiContext, LtiDeployment, LtiLineItem, LtiPlatform, LtiUserLink
from app.lti.worker import PassbackWorker
from app.problems.models import Problem
from app.submissions.models import Submission

STUDENTS = 500
LISTENER_US = 20.0
MARK_MS = 20.0
VERIFY_MS = 5.0


def _course(db: Database) -> tuple[int, int]:
    """A linked 500-student course with one assignment of three problems; (a student, a problem)."""
    with db.transaction() as session:
        owner = User(email="owner@bench.example", password_hash="x", role="instructor")
        session.add(owner)
        problems = [
            Problem(slug=f"p{i}", title=f"P{i}", difficulty="easy", category="bench") for i in range(3)
        ]
        session.add_all(problems)
        session.flush()
        course = Course(title="Bench", owner_id=owner.id, join_code="BENCH123")
        session.add(course)
        session.flush()
        now = utcnow()
        assignment = Assignment(
            course_id=course.id, title="A", release_at=now, due_at=now + timedelta(days=1)
        )
        session.add(assignment)
        session.flush()
        session.add_all(AssignmentProblem(assignment_id=assignment.id, problem_id=p.id) for p in problems)
        platform = LtiPlatform(
            issuer="https://lms.bench.example",
            client_id="c",
            auth_url="https://a",
            token_url="https://t",
            jwks_url="https://j",
        )
        session.add(platform)
        session.flush()
        deployment = LtiDeployment(platform_id=platform.id, deployment_id="d")
        session.add(deployment)
        session.flush()
        context = LtiContext(
            deployment_id=deployment.id, context_id="ctx", course_id=course.id, ags_scopes=[]
        )
        session.add(context)
        session.flush()
        session.add(LtiLineItem(assignment_id=assignment.id, context_link_id=context.id, url="https://li/1"))
        users = [User(email=f"s{i}@bench.example", password_hash="x") for i in range(STUDENTS)]
        session.add_all(users)
        session.flush()
        session.add_all(CourseMember(course_id=course.id, user_id=u.id, role="student") for u in users)
        session.add_all(LtiUserLink(issuer=platform.issuer, sub=f"sub-{u.id}", user_id=u.id) for u in users)
        return users[STUDENTS // 2].id, problems[1].id


def main() -> int:
    missed = False
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        upgrade_database(url)
        db = Database(url)
        worker = PassbackWorker(db, "bench-secret-" + "x" * 40)  # not started: only its listener runs
        row = Submission(user_id=1, problem_id=1, mode="submit", code="", status="finished")
        n = 100_000
        start = time.perf_counter()
        for i in range(n):
            worker.on_verdict(i, row)
        listener_us = (time.perf_counter() - start) / n * 1e6
        print(
            f"lti: the verdict listener (judging path): {listener_us:.2f} µs a verdict "
            f"(target ≤ {LISTENER_US:g})"
        )
        missed |= listener_us > LISTENER_US
        user_id, problem_id = _course(db)
        times = []
        for _ in range(50):
            start = time.perf_counter()
            with db.transaction() as session:
                assert passback.mark_for_work(session, user_id, problem_id) == 1
            times.append((time.perf_counter() - start) * 1000)
        db.dispose()
    mark_ms = statistics.median(times)
    print(
        f"lti: marking a verdict's line items, {STUDENTS}-student course: {mark_ms:.2f} ms median "
        f"(target ≤ {MARK_MS:g})"
    )
    missed |= mark_ms > MARK_MS

    key = RSAKey.generate_key(2048, parameters={"kid": "k"})
    keys = KeySet.import_key_set({"keys": [key.as_dict(private=False)]})
    now = int(time.time())
    token = jwt.encode(
        {"alg": "RS256", "kid": "k"},
        {"iss": "i", "aud": "c", "exp": now + 300, "iat": now, "nonce": "n", "sub": "s"},
        key,
    )
    registry = jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": "i"},
        aud={"essential": True},
        exp={"essential": True},
        nonce={"essential": True},
    )
    times = []
    for _ in range(200):
        start = time.perf_counter()
        registry.validate(jwt.decode(token, keys, algorithms=["RS256"]).claims)
        times.append((time.perf_counter() - start) * 1000)
    verify_ms = statistics.median(times)
    print(
        f"lti: a launch's id_token check (RS256 + claims): {verify_ms:.2f} ms median (target ≤ {VERIFY_MS:g})"
    )
    missed |= verify_ms > VERIFY_MS
    if missed:
        print("[FAIL] bench.lti: a target was missed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
