"""Scaled-out judging: the web publishes jobs to runner workers through Celery (Redis broker).

``TORCHDRILL_BROKER_URL`` switches it on. The flow of one submission::

    web: commit row (queued) ──after commit──► publish ``judge`` {job, token}  ──► queue "judge"
    runner worker: ``started`` ──► queue "results"; judge in the sandbox; ``record`` ──► "results"
    recorder: check the token, ``record_result`` (first verdict wins), PUBLISH finished id
    web: the finished-listener wakes ``?wait=true`` requests waiting for that id

The runner never sees the database: the job carries everything it needs. The token is an HMAC of
the submission id under the app's secret, so a runner can answer only the jobs it was given.
Lost messages (a Redis that restarted without its data, a crash between commit and publish) are
found by the recorder's sweeper (:mod:`app.scaleout.recorder`), which publishes them again or,
after ``stuck_after_s``, ends them as ``internal_error``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import time
from typing import Any

import redis
from celery import Celery

from app.kit.broker import make_redis
from app.kit.db import Database
from app.kit.logging import submission_context
from app.kit.settings import Settings
from app.scaleout.finished import FinishedListener, announce_finished
from app.submissions.dispatch import ResultWaiter
from app.submissions.judging import load_job, record_result
from runner.jobs import Job, JudgeResult
from runner.transport.wire import JUDGE_QUEUE, JUDGE_TASK, celery_config, direct

log = logging.getLogger(__name__)

# A failed publish must not hold the request for long: the sweeper publishes it later.
REQUEST_PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2, "interval_max": 0.3}


def judge_token(secret: str, submission_id: int) -> str:
    return hmac.new(secret.encode(), f"judge:{submission_id}".encode(), hashlib.sha256).hexdigest()


def token_ok(secret: str, submission_id: int, token: str) -> bool:
    return hmac.compare_digest(judge_token(secret, submission_id), str(token))


def make_celery(settings: Settings, name: str = "torchdrill-web", owner: str | None = None) -> Celery:
    """A Celery app on the deployment's namespace; ``owner``: a consumer's name (leases.py)."""
    assert settings.broker_url, "TORCHDRILL_BROKER_URL is not set"
    celery = Celery(name)
    celery.conf.update(
        celery_config(settings.broker_url, settings.broker_visibility_timeout_s, settings.wire, owner)
    )
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
        raw = self.client.get(self.settings.wire.dispatched_key(submission_id))
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
                self.settings.wire.dispatched_key(submission_id),
                json.dumps({"attempt": attempt, "ts": time.time()}),
                ex=int(self.settings.stuck_after_s * 2) + 60,
            )
            log.info("job published (attempt %s)", attempt)
            return True

    def finish(self, submission_id: int, result: JudgeResult) -> bool:
        """Record a verdict decided outside a runner, and tell waiters and runners about it."""
        with self.db.transaction() as session:
            recorded = record_result(session, submission_id, result)
        announce_finished(self.client, self.settings.wire, submission_id)
        return recorded


class CeleryDispatcher:
    """The :class:`~app.submissions.dispatch.Dispatcher` that sends jobs to runner workers."""

    def __init__(self, db: Database, settings: Settings, waiter: ResultWaiter) -> None:
        self.client = make_redis(settings)
        self.celery = make_celery(settings)
        self.publisher = Publisher(db, settings, self.celery, self.client)
        self.listener = FinishedListener(self.client, settings.wire, waiter)
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
