"""Worker-side judging: exactly one verdict per submission, recovery after a restart, waiting."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.models import User
from app.kit.db import Database
from app.problems.models import Problem
from app.submissions.dispatch import ResultWaiter
from app.submissions.judging import judge_submission, record_result
from app.submissions.models import Submission
from app.submissions.waiting import wait_for
from runner.jobs import CaseResult, JudgeResult
from runner.verdict import Verdict


class RecordingDispatcher:
    """Collects ids instead of judging: lets a test hold submissions in the queue."""

    def __init__(self) -> None:
        self.ids: list[int] = []

    def submit(self, submission_id: int) -> None:
        self.ids.append(submission_id)

    def shutdown(self) -> None:
        pass


def _store(db: Database, email: str, code: str, status: str = "queued") -> int:
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        problem = session.scalars(select(Problem).where(Problem.slug == "add-tensors")).one()
        submission = Submission(
            user_id=user.id,
            problem_id=problem.id,
            problem_version_id=problem.current_version_id,
            mode="submit",
            code=code,
            status=status,
        )
        session.add(submission)
        session.flush()
        return submission.id


def _result(verdict: str) -> JudgeResult:
    return JudgeResult(verdict=verdict, passed=1 if verdict == Verdict.ACCEPTED else 0, total=1,
                       cases=[CaseResult(name="example", public=True, status="passed")])  # fmt: skip


def test_a_result_is_recorded_once(db: Database, learner) -> None:
    sid = _store(db, learner.email, "x = 1")
    with db.transaction() as session:
        assert record_result(session, sid, _result(Verdict.ACCEPTED)) is True
    with db.transaction() as session:
        assert record_result(session, sid, _result(Verdict.WRONG_ANSWER)) is False
    body = learner.get(f"/api/submissions/{sid}").json()
    assert body["status"] == "finished" and body["verdict"] == Verdict.ACCEPTED


def test_judging_a_finished_submission_changes_nothing(db: Database, learner, runner, code_of) -> None:
    sid = _store(db, learner.email, code_of("add-tensors"))
    assert judge_submission(db, runner, sid) is True
    first = learner.get(f"/api/submissions/{sid}").json()
    assert first["verdict"] == Verdict.ACCEPTED
    assert judge_submission(db, runner, sid) is False
    assert learner.get(f"/api/submissions/{sid}").json() == first


def test_a_submission_is_stored_before_it_is_judged(app, db: Database, learner, code_of) -> None:
    held = RecordingDispatcher()
    real, app.state.dispatcher = app.state.dispatcher, held
    try:
        created = learner.submit("add-tensors", code_of("add-tensors"))
    finally:
        app.state.dispatcher = real
    sid = created.json()["id"]
    assert held.ids == [sid]
    assert learner.get(f"/api/submissions/{sid}").json()["status"] == "queued"


def test_restart_finishes_what_was_in_flight(
    db: Database, learner, make_app, code_of: Callable[..., str]
) -> None:
    queued = _store(db, learner.email, code_of("add-tensors"), status="queued")
    running = _store(db, learner.email, code_of("add-tensors", "mutants/subtracts.py"), status="running")
    restarted = make_app()
    with TestClient(restarted):  # startup re-dispatches queued and running submissions
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if learner.get(f"/api/submissions/{running}").json()["status"] == "finished" and (
                learner.get(f"/api/submissions/{queued}").json()["status"] == "finished"
            ):
                break
            time.sleep(0.05)
    assert learner.get(f"/api/submissions/{queued}").json()["verdict"] == Verdict.ACCEPTED
    assert learner.get(f"/api/submissions/{running}").json()["verdict"] == Verdict.WRONG_ANSWER


def test_waiter_is_woken_by_the_result() -> None:
    waiter = ResultWaiter()
    done = threading.Event()
    checked = threading.Event()  # the waiter registered, then looked at the "database": it now waits
    woke: list[float] = []

    def is_finished() -> bool:
        checked.set()
        return done.is_set()

    def wait() -> None:
        start = time.monotonic()
        waiter.wait(7, is_finished, timeout=10)
        woke.append(time.monotonic() - start)

    thread = threading.Thread(target=wait)
    thread.start()
    assert checked.wait(5)
    done.set()
    waiter.notify(7)
    thread.join(5)
    assert woke and woke[0] < 2


def test_waiter_returns_at_once_when_already_finished() -> None:
    start = time.monotonic()
    assert ResultWaiter().wait(1, lambda: True, timeout=10) is True
    assert time.monotonic() - start < 1


def test_async_wait_reads_again_once_notified_from_another_thread() -> None:
    """``?wait`` on the event loop: subscribed before the first read, woken by the judge's thread."""
    waiter = ResultWaiter()
    finished = threading.Event()
    first_read = threading.Event()
    reads: list[bool] = []

    def read() -> bool:
        reads.append(finished.is_set())
        first_read.set()
        return finished.is_set()

    def judge() -> None:  # the judge thread records the verdict once the request waits
        assert first_read.wait(5)
        finished.set()
        waiter.notify(7)

    async def request() -> bool:
        threading.Thread(target=judge).start()
        return await wait_for(waiter, 7, read, bool, seconds=30)

    start = time.monotonic()
    assert asyncio.run(request()) is True
    assert time.monotonic() - start < 10  # woken, not timed out
    assert reads == [False, True]
    waiter.notify(7)  # nobody subscribes any more: harmless


def test_async_wait_answers_at_once_when_already_finished_and_after_the_timeout() -> None:
    waiter = ResultWaiter()
    assert asyncio.run(wait_for(waiter, 1, lambda: "finished", lambda v: v == "finished", 30)) == "finished"
    reads: list[int] = []

    def read() -> int:
        reads.append(1)
        return len(reads)

    assert asyncio.run(wait_for(waiter, 2, read, lambda _: False, 0.05)) == 2  # read again after the timeout


def test_a_notification_after_the_mark_is_heard_with_its_row() -> None:
    waiter = ResultWaiter()
    before = waiter.mark()
    assert waiter.heard(7, before) == (False, None)
    row = Submission(id=7, status="finished", verdict=Verdict.ACCEPTED)
    waiter.notify(7, row)
    assert waiter.heard(7, before) == (True, row)
    assert waiter.heard(7, waiter.mark()) == (False, None)  # older than a later mark: not news
    waiter.notify(8)  # from another process: no row
    assert waiter.heard(8, before) == (True, None)


def test_a_forgotten_notification_is_never_taken_for_silence() -> None:
    waiter = ResultWaiter(remember=2)
    before = waiter.mark()
    for sid in (7, 8, 9):
        waiter.notify(sid)
    assert waiter.heard(7, before) == (True, None)  # forgotten since the mark: cannot tell, so "read"
    assert waiter.heard(1, before) == (True, None)
    assert waiter.heard(1, waiter.mark()) == (False, None)


def test_async_wait_since_a_mark_answers_from_the_notified_row_without_reading() -> None:
    """The POST ?wait path: the submission was known unfinished at the mark, the judge hands its row."""
    waiter = ResultWaiter()
    since = waiter.mark()
    reads: list[int] = []

    def read() -> str:
        reads.append(1)
        return "queued"

    def judge() -> None:
        time.sleep(0.05)
        waiter.notify(7, Submission(id=7, status="finished", verdict=Verdict.ACCEPTED))

    async def request() -> str:
        threading.Thread(target=judge).start()
        return await wait_for(waiter, 7, read, lambda v: v == "finished", 30, since=since,
                              view=lambda row: row.status)  # fmt: skip

    start = time.monotonic()
    assert asyncio.run(request()) == "finished"
    assert time.monotonic() - start < 10 and reads == []
    # Recorded before the request subscribed (between its commit and its wait): answered at once.
    assert asyncio.run(wait_for(waiter, 7, read, lambda v: v == "finished", 30, since=since,
                                view=lambda row: row.status)) == "finished"  # fmt: skip
    assert reads == []


def test_async_wait_since_a_mark_reads_when_the_notification_has_no_row() -> None:
    waiter = ResultWaiter()
    since = waiter.mark()
    waiter.notify(7)  # a verdict recorded by another process, before the request subscribed
    result = asyncio.run(wait_for(waiter, 7, lambda: "finished", lambda v: v == "finished", 30, since=since,
                                  view=lambda row: "from the row"))  # fmt: skip
    assert result == "finished"
