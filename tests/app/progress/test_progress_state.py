"""The maintained progress state (app/progress) equals the one rebuilt from the submissions table.

Listings read it instead of aggregating history; these tests drive real submissions through the
app and the real sandbox, on SQLite and PostgreSQL, and compare with ``progress_rebuild``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from fastapi import FastAPI
from sqlalchemy import select, update

from app.kit.db import Database
from app.problems.models import Problem
from app.progress import repository as progress
from app.progress.models import ProblemStats
from app.submissions import progress_rebuild
from app.submissions.judging import judge_submission, reopen_for_rejudge
from tests.app.conftest import Browser, wait_idle

WRONG = "import torch\n\ndef add(a, b):\n    return a - b\n"


def _problem_id(db: Database, slug: str) -> int:
    with db.transaction() as session:
        return session.scalars(select(Problem.id).where(Problem.slug == slug)).one()


def _in_step(db: Database) -> progress_rebuild.Comparison:
    with db.transaction() as session:
        return progress_rebuild.compare(session)


def test_verdicts_maintain_marks_and_acceptance(
    learner: Browser, db: Database, code_of: Callable[..., str], app: FastAPI
) -> None:
    pid = _problem_id(db, "add-tensors")
    run = learner.verdict(learner.submit("add-tensors", code_of("add-tensors"), mode="run").json()["id"])
    assert run["verdict"] == "accepted"
    with db.transaction() as session:
        user_id = session.scalar(select(progress.LearnerProblem.user_id))  # type: ignore[attr-defined]
        assert progress.marks(session, user_id) == {pid: False}  # a passing Run is not a solve
        assert progress.acceptance_counts(session, [pid]) == {}  # runs do not count
    assert learner.verdict(learner.submit("add-tensors", WRONG).json()["id"])["verdict"] == "wrong_answer"
    assert learner.verdict(learner.submit("add-tensors", code_of("add-tensors")).json()["id"])["verdict"] == (
        "accepted"
    )
    wait_idle(app)
    with db.transaction() as session:
        assert progress.marks(session, user_id) == {pid: True}
        assert progress.acceptance_counts(session, [pid]) == {pid: (1, 2)}
        assert len(progress.first_solves(session, user_id)) == 1
    comparison = _in_step(db)
    assert comparison.in_step and comparison.learner_rows == 1 and comparison.stats_rows == 1


def test_rejudging_takes_the_old_verdict_back(
    learner: Browser, db: Database, code_of: Callable[..., str], runner, app: FastAPI
) -> None:
    pid = _problem_id(db, "add-tensors")
    sid = learner.submit("add-tensors", code_of("add-tensors")).json()["id"]
    assert learner.verdict(sid)["verdict"] == "accepted"
    wait_idle(app)
    assert reopen_for_rejudge(db, sid) == "accepted"
    with db.transaction() as session:  # between reopening and the new verdict: nothing is counted
        assert progress.acceptance_counts(session, [pid]) == {pid: (0, 0)}
        assert progress.solved_ids(session, session.scalar(select(progress.LearnerProblem.user_id))) == set()  # type: ignore[attr-defined]
    assert _in_step(db).in_step
    assert judge_submission(db, runner, sid) is True
    with db.transaction() as session:
        assert progress.acceptance_counts(session, [pid]) == {pid: (1, 1)}
    assert _in_step(db).in_step


def test_state_equals_the_rebuild_after_a_concurrent_load(
    new_browser: Callable[[], Browser], db: Database, code_of: Callable[..., str], app: FastAPI
) -> None:
    learners = [new_browser() for _ in range(4)]
    for b in learners:
        assert b.signup().status_code == 303
    jobs = [
        (b, slug, code, mode)
        for b in learners
        for slug in ("add-tensors", "sum-of-squares")
        for code, mode in ((code_of(slug), "submit"), (WRONG, "submit"), (code_of(slug), "run"))
    ]

    def go(job: tuple[Browser, str, str, str]) -> str:
        b, slug, code, mode = job
        response = b.submit(slug, code, mode=mode)
        assert response.status_code == 202, response.text
        return str(b.verdict(response.json()["id"])["status"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(go, jobs)) == {"finished"}
    wait_idle(app)
    comparison = _in_step(db)
    assert comparison.in_step, comparison
    assert comparison.learner_rows == 8 and comparison.stats_rows == 2
    with db.transaction() as session:
        counts = progress.acceptance_counts(session, [_problem_id(db, "add-tensors")])
        assert list(counts.values()) == [(4, 8)]


def test_rebuild_repairs_a_state_that_drifted(
    learner: Browser, db: Database, code_of: Callable[..., str], app: FastAPI
) -> None:
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors")).json()["id"])
    wait_idle(app)
    with db.transaction() as session:
        session.execute(update(ProblemStats).values(accepted=ProblemStats.accepted + 5))
    drifted = _in_step(db)
    assert not drifted.in_step and drifted.stats_differences == 2  # the wrong row and the right one
    with db.transaction() as session:
        before = progress_rebuild.rebuild(session)
    assert before.stats_differences == 2
    assert _in_step(db).in_step
