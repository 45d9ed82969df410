"""Scaled-out judging: the web publishes jobs to runner workers through Celery (Redis broker).

``TORCHDRILL_BROKER_URL`` switches it on. The flow of one submission::

    web: commit row (queued) ──after commit──► publish ``judge`` {job, token}  ──► queue "judge"
    runner worker: ``started`` ──► queue "results"; judge in the sandbox; ``record`` ──► "results"
    recorder: check the token, ``record_result`` (first verdict wins), PUBLISH finished id
    web: the finished-listener wakes ``?wait=true`` requests waiting for that id

The runner never sees the database: the job carries everything it needs. The token is an HMAC of
the submission id under the app's secret, so a runner can answer only the jobs it was given.
Lost messages (a Redis that restarted without its data, a crash between commit and publish) are
found by the recorder's sweeper (:mod:`app.submissions.recorder`), which publishes them again or,
after ``stuck_after_s``, ends them as ``internal_error``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import threading
import time
import uuid
from typing import Any

import redis
from celery import Celery

from app.kit.broker import make_redis
from app.kit.db import Database
from app.kit.logging import submission_context
from app.kit.settings import Settings
from app.submissions.dispatch import ResultWaiter
from app.submissions.judging import load_job, record_result
from runner.engine import ExpectationError
from runner.jobs import Expectations, Job, JudgeResult, Mode
from runner.problem import ProblemFiles
from runner.wire import (
    ADHOC_TASK,
    FINISHED_CHANNEL,
    HEARTBEAT_TTL_S,
    JUDGE_QUEUE,
    JUDGE_TASK,
    KEY_PREFIX,
    RESULTS_QUEUE,
    RUNNERS_KEY,
    celery_config,
    direct,
    done_key,
)

log = logging.getLogger(__name__)
ADHOC_SLACK_S = 60.0  # queueing behind submissions, and a cold runner

# A failed publish must not hold the request for long: the sweeper publishes it later.
REQUEST_PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2, "interval_max": 0.3}


def dispatched_key(submission_id: int) -> str:
    return f"{KEY_PREFIX}dispatched:{submission_id}"


def judge_token(secret: str, submission_id: int) -> str:
    return hmac.new(secret.encode(), f"judge:{submission_id}".encode(), hashlib.sha256).hexdigest()


def token_ok(secret: str, submission_id: int, token: str) -> bool:
    return hmac.compare_digest(judge_token(secret, submission_id), str(token))


def make_celery(settings: Settings, name: str = "torchdrill-web") -> Celery:
    assert settings.broker_url, "TORCHDRILL_BROKER_URL is not set"
    celery = Celery(name)
    celery.conf.update(celery_config(settings.broker_url, settings.broker_visibility_timeout_s))
    return celery


def build_job(db: Database, submission_id: int) -> Job | None:
    """The job of an unfinished submission, without marking it running.

    ``load_job`` marks the row running, which here is the runner's word to say (it sends
    ``started``); its update is rolled back, only the job it built is kept.
    """
    with db.sessionmaker() as session:
        try:
            return load_job(session, submission_id)
        finally:
            session.rollback()


class Publisher:
    """Publishes ``judge`` jobs; shared by the web's dispatcher and the recorder's sweeper."""

    def __init__(self, db: Database, settings: Settings, celery: Celery, client: redis.Redis) -> None:
        self.db = db
        self.settings = settings
        self.celery = celery
        self.client = client

    def last_dispatch(self, submission_id: int) -> dict[str, Any] | None:
        raw = self.client.get(dispatched_key(submission_id))
        return json.loads(raw) if raw else None

    def publish(
        self, submission_id: int, *, force: bool = False, retry_policy: dict[str, Any] | None = None
    ) -> bool:
        """Publish the job unless it was published less than ``requeue_after_s`` ago (or ``force``).

        Returns whether a message was sent. A submission whose problem cannot be loaded is ended
        as ``internal_error`` here; a finished one is left alone.
        """
        with submission_context(submission_id):
            previous = self.last_dispatch(submission_id)
            if (
                previous is not None
                and not force
                and time.time() - float(previous["ts"]) < self.settings.requeue_after_s
            ):
                log.info("already published %.1f s ago; not again", time.time() - float(previous["ts"]))
                return False
            try:
                job = build_job(self.db, submission_id)
            except Exception as exc:  # a broken stored problem must still end with a verdict
                log.exception("cannot build the job")
                self.finish(
                    submission_id,
                    JudgeResult.internal_error(
                        f"The problem could not be loaded for judging (not your fault): {exc}",
                        "problem_unloadable",
                    ),
                )
                return False
            if job is None:
                return False
            attempt = 1 + int(previous["attempt"]) if previous else 1
            self.celery.send_task(
                JUDGE_TASK,
                kwargs={
                    "submission_id": submission_id,
                    "token": judge_token(self.settings.secret_key, submission_id),
                    "job": job.to_dict(),
                    "attempt": attempt,
                },
                **direct(JUDGE_QUEUE),
                # A job nobody took before the sweeper gave up on it is dropped by the worker.
                expires=self.settings.stuck_after_s,
                retry=True,
                retry_policy=retry_policy or REQUEST_PUBLISH_RETRY,
            )
            self.client.set(
                dispatched_key(submission_id),
                json.dumps({"attempt": attempt, "ts": time.time()}),
                ex=int(self.settings.stuck_after_s * 2) + 60,
            )
            log.info("job published (attempt %s)", attempt)
            return True

    def finish(self, submission_id: int, result: JudgeResult) -> bool:
        """Record a verdict decided outside a runner, and tell waiters and runners about it."""
        with self.db.transaction() as session:
            recorded = record_result(session, submission_id, result)
        announce_finished(self.client, submission_id)
        return recorded


def announce_finished(client: redis.Redis, submission_id: int) -> None:
    pipe = client.pipeline(transaction=False)
    pipe.set(done_key(submission_id), "1", ex=7 * 24 * 3600)
    pipe.publish(FINISHED_CHANNEL, str(submission_id))
    pipe.execute()


class FinishedListener:
    """Wakes this process's ``ResultWaiter`` when any recorder announces a verdict (Redis pub/sub).

    A notification missed while Redis restarts only delays a waiter until its timeout, when it
    reads the database anyway.
    """

    def __init__(self, client: redis.Redis, waiter: ResultWaiter) -> None:
        self.client = client
        self.waiter = waiter
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="finished-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.subscribe(FINISHED_CHANNEL)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message and message.get("type") == "message":
                        with contextlib.suppress(ValueError):
                            self.waiter.notify(int(message["data"]))
            except redis.RedisError as exc:
                log.warning("finished-listener lost Redis (%s); reconnecting", type(exc).__name__)
                self._stop.wait(1.0)
            finally:
                with contextlib.suppress(Exception):
                    pubsub.close()


class CeleryDispatcher:
    """The :class:`~app.submissions.dispatch.Dispatcher` that sends jobs to runner workers."""

    def __init__(self, db: Database, settings: Settings, waiter: ResultWaiter) -> None:
        self.client = make_redis(settings)
        self.celery = make_celery(settings)
        self.publisher = Publisher(db, settings, self.celery, self.client)
        self.listener = FinishedListener(self.client, waiter)
        self.listener.start()

    def submit(self, submission_id: int) -> None:
        """Publish after the request's commit; a broker outage leaves the job to the sweeper."""
        try:
            self.publisher.publish(submission_id)
        except Exception:
            with submission_context(submission_id):
                log.exception("publishing failed; the recorder's sweeper will publish it again")

    def shutdown(self) -> None:
        self.listener.stop()
        with contextlib.suppress(Exception):
            self.client.close()


# --- what the web shows about remote runners ---------------------------------------------------


def runner_heartbeats(client: redis.Redis) -> list[dict[str, Any]]:
    """Fresh heartbeats of runner workers (stale ones, left by killed workers, are dropped)."""
    now = time.time()
    beats = []
    for name, raw in client.hgetall(RUNNERS_KEY).items():
        beat = json.loads(raw)
        if now - float(beat.get("ts", 0)) < HEARTBEAT_TTL_S:
            beats.append(beat)
        else:
            client.hdel(RUNNERS_KEY, name)
    return beats


def runner_pool(client: redis.Redis) -> dict[str, int]:
    beats = runner_heartbeats(client)
    return {
        "workers": len(beats),
        "slots": sum(int(b.get("slots", 0)) for b in beats),
        "busy": sum(int(b.get("busy", 0)) for b in beats),
        "warm": sum(int(b.get("warm_zygotes", 0)) for b in beats),
    }


def queue_depth(client: redis.Redis) -> dict[str, int]:
    pipe = client.pipeline(transaction=False)
    for queue in (JUDGE_QUEUE, RESULTS_QUEUE):
        pipe.llen(queue)
    return dict(zip((JUDGE_QUEUE, RESULTS_QUEUE), pipe.execute(), strict=True))


class RemoteRunner:
    """The web's :class:`~app.kit.runner.JudgeRunner` when judging happens in runner workers."""

    def __init__(self, client: redis.Redis, celery: Celery | None = None, broker_url: str = "") -> None:
        self.client = client
        self.celery = celery
        # Blocking reads outlast the shared client's socket timeout: a client of their own.
        self._replies = redis.Redis.from_url(broker_url, socket_connect_timeout=5) if broker_url else client
        self._info: dict[str, str] = {}
        self._info_at = 0.0

    def ready(self) -> bool:
        """The broker is reachable: submissions are accepted and wait for a runner."""
        return bool(self.client.ping())

    def runtime_info(self) -> dict[str, str]:
        if time.monotonic() - self._info_at > 10:
            beats = [b for b in runner_heartbeats(self.client) if b.get("runtime")]
            self._info = dict(beats[0]["runtime"]) if beats else {}
            self._info_at = time.monotonic()
        return dict(self._info)

    def _ask(self, kind: str, payload: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send an ad-hoc request to a runner worker and block until its answer (or time out)."""
        if self.celery is None:
            raise RuntimeError("no broker connection for ad-hoc runner requests")
        reply_key = f"{KEY_PREFIX}reply:{uuid.uuid4().hex}"
        self.celery.send_task(
            ADHOC_TASK,
            kwargs={"kind": kind, "payload": payload, "reply_key": reply_key},
            expires=timeout_s,
            **direct(JUDGE_QUEUE),
        )
        answer = self._replies.blpop([reply_key], timeout=max(1, int(timeout_s)))
        if answer is None:
            raise RuntimeError(f"no runner worker answered within {timeout_s:.0f} s; is a runner running?")
        return dict(json.loads(answer[1]))

    def judge(self, job: Job) -> JudgeResult:
        """Judge outside the submission flow (authoring's validation) through a runner worker."""
        reply = self._ask("judge", job.to_dict(), job.limits.time_s + ADHOC_SLACK_S)
        if "result" not in reply:
            return JudgeResult.internal_error(str(reply.get("error", "")), "runner_reply")
        return JudgeResult.from_dict(reply["result"])

    def compute_expectations(self, problem: ProblemFiles) -> Expectations:
        reply = self._ask(
            "expectations",
            {"slug": problem.slug, "files": problem.files()},
            problem.limits.time_s + ADHOC_SLACK_S,
        )
        if "expectations" not in reply:
            if reply.get("kind") == "expectation":
                raise ExpectationError(reply.get("error", "the reference failed"))
            raise RuntimeError(reply.get("error", "the runner failed"))
        return Expectations.from_dict(reply["expectations"])

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job:
        return problem.job(expectations, code, mode, job_id)
