"""Faults, for real: runner workers and the recorder are separate processes on a real Redis and
PostgreSQL; the web side publishes with the same ``Publisher`` the web process uses.

Every test ends with exactly one verdict per submission, checked in the database.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from app.kit.broker import make_redis
from app.kit.db import Database
from app.scaleout.celery_dispatch import Publisher, make_celery
from runner.transport.names import Wire
from tests.scale.stack import (
    Stack,
    code_of,
    insert_submission,
    json_lines,
    make_user,
    rows,
    wait_finished,
    wait_for,
)

pytestmark = [pytest.mark.celery, pytest.mark.postgres, pytest.mark.slow]

# The stack's broker is database 0 of its own redis-server, without TORCHDRILL_NAMESPACE.
WIRE = Wire("torchdrill-db0")
SLOW_SOLUTION = "import time\nimport torch\n\ntime.sleep(3)\n\n\ndef add(a, b):\n    return a + b\n"


@pytest.fixture
def publisher(stack: Stack) -> Iterator[Publisher]:
    """The web's publishing half, in this process (the web app itself is tested in test_web.py)."""
    settings = stack.settings()
    db = Database(stack.db_url)
    pub = Publisher(db, settings, make_celery(settings), make_redis(settings))
    try:
        yield pub
    finally:
        db.dispose()


def submit(stack: Stack, publisher: Publisher, user: int, code: str, slug: str = "add-tensors") -> int:
    submission_id = insert_submission(stack.db_url, user, slug, code)
    assert publisher.publish(submission_id)
    return submission_id


def test_round_trip_duplicate_delivery_and_log_lines(stack: Stack, publisher: Publisher) -> None:
    stack.start_recorder()
    user = make_user(stack.db_url)
    good = submit(stack, publisher, user, code_of("add-tensors"))
    bad = submit(stack, publisher, user, code_of("add-tensors", "mutants/subtracts.py"))
    # The same job in the queue twice (a redelivery racing a slow ack): both copies are judged at
    # once by the two slots, the first verdict is kept and the second one ignored.
    twice = submit(stack, publisher, user, SLOW_SOLUTION)
    assert publisher.publish(twice, force=True)
    runner = stack.start_runner("runner-a", slots=2)
    done = wait_finished(stack.db_url, [good, bad, twice], 40)
    assert done[good].verdict == "accepted" and done[bad].verdict == "wrong_answer"
    assert done[twice].verdict == "accepted"
    client = publisher.client
    wait_for(lambda: client.hget(WIRE.key("metrics:events"), "duplicate") == b"1", 20, "the duplicate")
    assert client.get(WIRE.deliveries_key(twice)) == b"2"
    assert client.hget(WIRE.key("metrics:verdicts"), "accepted") == b"2"

    # A job whose submission already has its verdict is not run again.
    publisher.celery.send_task(
        "torchdrill.judge",
        kwargs={"submission_id": good, "token": "not-needed", "job": {}, "attempt": 9},
        exchange="",
        routing_key="judge",
    )
    wait_for(lambda: "job skipped" in runner.output(), 20, "the runner to skip a finished job")
    assert client.get(WIRE.deliveries_key(good)) == b"1"

    # Every line about a submission says which one, in the runner and in the recorder alike.
    for proc in stack.procs:
        lines = json_lines(proc.output())
        about = [e for e in lines if "verdict" in e["message"] or "judged" in e["message"]]
        assert about, proc.name
        assert all(e.get("submission_id") in (good, bad, twice) for e in about), about


def test_worker_killed_mid_job_the_submission_is_run_again_within_seconds(
    stack: Stack, publisher: Publisher
) -> None:
    # The broker's own redelivery (the visibility timeout) is far off: only the lease can bring
    # the job back in time.
    stack.settings_env["TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S"] = "300"
    publisher.celery = make_celery(stack.settings())
    runners = [stack.start_runner(name, slots=1, wait=False) for name in ("runner-a", "runner-b")]
    stack.start_recorder()
    for runner in runners:
        stack.wait_runner(runner)
    user = make_user(stack.db_url)
    submission_id = submit(stack, publisher, user, SLOW_SOLUTION.replace("sleep(3)", "sleep(2)"))
    wait_for(
        lambda: (
            rows(stack.db_url, f"SELECT status FROM submissions WHERE id = {submission_id}")[0].status
            == "running"
        ),
        20,
        "the job to start",
    )
    # The runner that holds it: its own unacknowledged set (one per consumer) has the message.
    [victim] = [r for r in runners if publisher.client.hlen(WIRE.key(f"unacked:{r.name}@scale-test"))]
    victim.kill(signal.SIGKILL)  # the worker only: its sandbox dies with it (bwrap --die-with-parent)
    killed_at = time.monotonic()
    done = wait_finished(stack.db_url, [submission_id], 60)
    took = time.monotonic() - killed_at
    assert done[submission_id].verdict == "accepted", done[submission_id]
    # Put back by the reaper (not published again by the sweeper), and recorded once.
    assert int(publisher.client.get(WIRE.deliveries_key(submission_id)) or 0) >= 2
    assert publisher.last_dispatch(submission_id)["attempt"] == 1
    assert publisher.client.hget(WIRE.key("metrics:verdicts"), "accepted") == b"1"
    assert publisher.client.hget(WIRE.key("metrics:events"), "reaped") == b"1"
    # Two leases (2 s each: expiry, then the reaper's own wait), a reaper round, the 2 s job, slack.
    assert took < 10, took


def test_a_job_that_keeps_killing_workers_ends_after_bounded_retries(
    stack: Stack, publisher: Publisher
) -> None:
    runner = stack.start_runner("runner-a", wait=False, TORCHDRILL_MAX_DELIVERIES="2")
    stack.start_recorder()
    stack.wait_runner(runner)
    user = make_user(stack.db_url)
    submission_id = insert_submission(stack.db_url, user, "add-tensors", code_of("add-tensors"))
    publisher.client.set(WIRE.deliveries_key(submission_id), 2)  # two workers already died on it
    assert publisher.publish(submission_id)
    done = wait_finished(stack.db_url, [submission_id], 30)
    assert done[submission_id].verdict == "internal_error"
    assert "stopped 2 times" in done[submission_id].message


def test_no_worker_for_a_long_time_ends_as_internal_error(stack: Stack, publisher: Publisher) -> None:
    stack.settings_env["TORCHDRILL_STUCK_AFTER_S"] = "3"
    publisher.settings = stack.settings()
    stack.start_recorder()
    user = make_user(stack.db_url)
    submission_id = submit(stack, publisher, user, code_of("add-tensors"))
    done = wait_finished(stack.db_url, [submission_id], 20)
    assert done[submission_id].verdict == "internal_error"
    assert "No judge finished this submission" in done[submission_id].message
    # A runner that turns up later does not judge it (the job expired): the verdict stays.
    runner = stack.start_runner("runner-late")
    wait_for(lambda: publisher.client.llen(WIRE.queue_key("judge")) == 0, 20, "the expired job to be dropped")
    time.sleep(1)
    assert rows(stack.db_url, f"SELECT verdict FROM submissions WHERE id = {submission_id}")[0].verdict == (
        "internal_error"
    )
    assert "judged:" not in runner.output()


def test_redis_restart_queued_work_resumes(stack: Stack, publisher: Publisher) -> None:
    stack.settings_env["TORCHDRILL_REQUEUE_AFTER_S"] = "3"
    publisher.settings = stack.settings()
    stack.start_recorder()
    user = make_user(stack.db_url)
    kept = [submit(stack, publisher, user, code_of("add-tensors")) for _ in range(4)]
    assert publisher.client.llen(WIRE.queue_key("judge")) == 4

    # 1. Redis restarts with its append-only file: the queue is still there.
    stack.redis_server.stop()
    stack.redis_server.start()
    assert publisher.client.llen(WIRE.queue_key("judge")) == 4
    stack.start_runner("runner-a")
    done = wait_finished(stack.db_url, kept, 40)
    assert {r.verdict for r in done.values()} == {"accepted"}

    # 2. Redis comes back empty (no persistence, a new node): the sweeper publishes the jobs again.
    lost = [submit(stack, publisher, user, code_of("add-tensors", "mutants/subtracts.py")) for _ in range(3)]
    stack.redis_server.stop(lose_data=True)
    stack.redis_server.start()
    assert publisher.client.get(WIRE.dispatched_key(lost[0])) is None
    done = wait_finished(stack.db_url, lost, 60)
    assert {r.verdict for r in done.values()} == {"wrong_answer"}
    assert len(rows(stack.db_url)) == 7


def test_redis_restarts_under_load_workers_survive(stack: Stack, publisher: Publisher) -> None:
    """The broker goes away again and again while jobs run and their messages are unacknowledged."""
    stack.settings_env["TORCHDRILL_REQUEUE_AFTER_S"] = "3"
    publisher.settings = stack.settings()
    recorder = stack.start_recorder()
    runner = stack.start_runner("runner-a", slots=2)
    user = make_user(stack.db_url)
    sent: list[int] = []
    stop = threading.Event()

    def learner() -> None:
        while not stop.is_set() and len(sent) < 60:
            submission_id = insert_submission(stack.db_url, user, "add-tensors", code_of("add-tensors"))
            sent.append(submission_id)
            with contextlib.suppress(Exception):  # Redis is down: the sweeper publishes it later
                publisher.publish(submission_id)
            time.sleep(0.05)

    thread = threading.Thread(target=learner)
    thread.start()
    try:
        # Each round: Redis goes away while work is in flight and new submissions keep coming.
        for _ in range(4):
            flowing = len(sent) + 8
            wait_for(lambda n=flowing: len(sent) >= n, 30, "submissions to flow with Redis up")
            stack.redis_server.stop()
            while_down = len(sent) + 3
            wait_for(lambda n=while_down: len(sent) >= n, 30, "submissions made while Redis is down")
            stack.redis_server.start()
    finally:
        stop.set()
        thread.join(timeout=30)
    done = wait_finished(stack.db_url, sent, 90)
    assert {r.verdict for r in done.values()} == {"accepted"}, stack.logs()
    # Both workers reconnected every time instead of dying.
    assert runner.alive() and recorder.alive(), stack.logs()
