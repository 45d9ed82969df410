"""The trusted end of scaled-out judging: store what runner workers report, and sweep.

``python -m app.scaleout.recorder`` is a Celery worker on the ``results`` queue. It holds the
database credentials and the app secret that runner workers do not have:

* ``started`` marks a submission running (a runner began it);
* ``record`` checks the job token and records the verdict with ``record_verdict``, which keeps the
  first verdict of a submission and ignores any later one (a job delivered twice), then announces
  the id on Redis pub/sub so every web process wakes its ``?wait=true`` requests;
* the **sweeper** thread, every ``sweep_interval_s``, publishes again the jobs that were lost
  (queued or running, untouched for ``requeue_after_s``, while nothing waits in the judge queue or
  the runner went quiet) and ends as ``internal_error`` any submission older than ``stuck_after_s``,
  so nothing stays queued forever when no runner is there.

Several recorders may run; a Redis lock lets one of them sweep at a time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import redis
from celery import Celery, signals
from sqlalchemy.exc import OperationalError

from app import analytics
from app.kit.broker import make_redis
from app.kit.db import Database, utcnow
from app.kit.links import public_url
from app.kit.logging import configure_logging, submission_context
from app.kit.mail import Mailer
from app.kit.metrics import RedisStats, Stats
from app.kit.settings import Settings, get_settings
from app.reports import outcomes as report_outcomes
from app.reports.service import Notifier
from app.scaleout.celery_dispatch import Publisher, make_celery, token_ok
from app.scaleout.finished import announce_finished
from app.scaleout.remote_runner import queue_depth
from app.submissions import repository
from app.submissions.judging import record_verdict
from app.submissions.models import RUNNING
from runner.jobs import JudgeResult
from runner.transport import heartbeat_files
from runner.transport.leases import Lease, Reaper
from runner.transport.wire import JUDGE_QUEUE, RECORD_TASK, RESULTS_QUEUE, STARTED_TASK, worker_argv

log = logging.getLogger(__name__)

# Touched by the sweeper thread every round; ``python -m app.scaleout.recorder healthcheck`` reads
# it. One file per process by default (runner/transport/heartbeat_files.py).
HEARTBEAT_FILE = Path(
    os.environ.get("TORCHDRILL_RECORDER_HEARTBEAT_FILE", "").strip()
    or heartbeat_files.default_file("recorder")
)


def _seconds_between(earlier: datetime, later: datetime) -> float:
    return max(0.0, (later - earlier).total_seconds())


class Recorder:
    """Handlers of the two result messages (plain methods, so tests can call them directly)."""

    def __init__(self, db: Database, settings: Settings, client: redis.Redis, stats: Stats) -> None:
        self.db = db
        self.settings = settings
        self.client = client
        self.stats = stats

    def started(self, submission_id: int, token: str, worker: str = "") -> None:
        with submission_context(submission_id):
            if not token_ok(self.settings.secret_key, submission_id, token):
                self.stats.incr("rejected")
                log.warning("'started' with a bad token from %s ignored", worker or "?")
                return
            with self.db.transaction() as session:
                repository.mark_running(session, submission_id, utcnow())
            log.info("running on %s", worker or "?")

    def record(
        self, submission_id: int, token: str, result: dict[str, Any], worker: str = "", deliveries: int = 1
    ) -> bool:
        """Store the verdict; False if the submission already had one (nothing changes then)."""
        with submission_context(submission_id):
            if not token_ok(self.settings.secret_key, submission_id, token):
                self.stats.incr("rejected")
                log.warning("a result with a bad token from %s was rejected", worker or "?")
                return False
            judged = JudgeResult.from_dict(result)
            with self.db.transaction() as session:
                submission = record_verdict(session, submission_id, judged)  # the finished row, or None
            if submission is not None:
                latency = _seconds_between(submission.created_at, submission.finished_at or utcnow())
                self.stats.verdict(judged.verdict, latency, judged.time_ms / 1000, judged.cause)
                log.info(
                    "verdict recorded: %s (%s/%s), %.2f s after submission, by %s, delivery %s",
                    judged.verdict,
                    judged.passed,
                    judged.total,
                    latency,
                    worker or "?",
                    deliveries,
                )
            else:
                self.stats.incr("duplicate")
                log.info("a second verdict (%s from %s) was ignored", judged.verdict, worker or "?")
            announce_finished(self.client, self.settings.wire, submission_id)
            return submission is not None


class Sweeper:
    """Finds lost and stuck submissions; see the module docstring for the rules."""

    def __init__(self, db: Database, settings: Settings, publisher: Publisher, stats: Stats) -> None:
        self.db = db
        self.settings = settings
        self.publisher = publisher
        self.stats = stats
        self.name = f"{socket.gethostname()}-{os.getpid()}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sweeper", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.settings.sweep_interval_s):
            with contextlib.suppress(OSError):
                HEARTBEAT_FILE.touch()
            try:
                self.sweep_once()
            except Exception:  # Redis or the database restarting: try again next round
                log.exception("sweep failed")

    def _unfinished(self) -> list[tuple[int, str, datetime, datetime | None]]:
        with self.db.sessionmaker() as session:
            return repository.unfinished(session)

    def sweep_once(self) -> dict[str, int]:
        client = self.publisher.client
        lock_s = max(1, int(self.settings.sweep_interval_s))
        if not client.set(self.settings.wire.key("sweeper"), self.name, nx=True, ex=lock_s):
            return {}
        done = {"stuck": 0, "redispatched": 0}
        depth = queue_depth(client, self.settings.wire)
        judge_queue_empty = depth[JUDGE_QUEUE] == 0
        # Verdicts still waiting in the results queue (a recorder that was down) are not stuck jobs.
        results_pending = depth[RESULTS_QUEUE] > 0
        now = utcnow()
        for submission_id, status, created_at, started_at in self._unfinished():
            with submission_context(submission_id):
                age = _seconds_between(created_at, now)
                if age > self.settings.stuck_after_s and not results_pending:
                    minutes = self.settings.stuck_after_s / 60
                    recorded = self.publisher.finish(
                        submission_id,
                        JudgeResult.internal_error(
                            f"No judge finished this submission within {minutes:g} minutes, so it was "
                            "stopped (not your fault). Please submit again.",
                            "stuck",
                        ),
                    )
                    if recorded:
                        done["stuck"] += 1
                        self.stats.incr("stuck")
                        log.error("stuck for %.0f s (%s); ended as internal_error", age, status)
                    continue
                last = self.publisher.last_dispatch(submission_id)
                touched = max(
                    created_at.timestamp(),
                    started_at.timestamp() if started_at else 0.0,
                    float(last["ts"]) if last else 0.0,
                )
                idle = time.time() - touched
                if idle > self.settings.requeue_after_s and (status == RUNNING or judge_queue_empty):
                    log.warning("%s and untouched for %.0f s: publishing the job again", status, idle)
                    if self.publisher.publish(submission_id, force=True):
                        done["redispatched"] += 1
                        self.stats.incr("redispatched")
        return done


class ReaperThread:
    """Every third of a lease, puts back what dead runner workers and recorders held
    (runner/transport/leases.py); every recorder runs one, a Redis lock per dead consumer keeps
    them from doing the same work twice."""

    def __init__(self, client: redis.Redis, settings: Settings, stats: Stats) -> None:
        self.reaper = Reaper(client, settings.wire, settings.lease_s, self._count)
        self.every_s = settings.lease_s / 3
        self.stats = stats
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reaper", daemon=True)

    def _count(self, owner: str, moved: int) -> None:
        if moved:
            self.stats.incr("reaped", moved)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                self.reaper.reap_once()
            except Exception as exc:  # Redis restarting: look again next round
                log.warning("reaping failed (%s)", type(exc).__name__)


def recorder_name() -> str:
    return f"recorder-{os.getpid()}@{socket.gethostname()}"


def create_recorder(
    settings: Settings, db: Database, name: str | None = None
) -> tuple[Celery, Recorder, Sweeper]:
    """The recorder's Celery app (tasks bound to ``db``), its handlers and its sweeper."""
    analytics.install()  # what a verdict updates besides progress (app.submissions.verdict_listeners)
    mailer = Mailer(
        settings
    )  # a report's re-judged copy finished here: its reporter is mailed, as by the web
    report_outcomes.install(lambda: Notifier(mailer, public_url(settings).rstrip("/")))
    celery = make_celery(settings, name="torchdrill-recorder", owner=name or recorder_name())
    client = make_redis(settings)
    stats = RedisStats(client, settings.wire.key("metrics:"))
    recorder = Recorder(db, settings, client, stats)
    sweeper = Sweeper(db, settings, Publisher(db, settings, celery, client), stats)
    retry = {
        "acks_late": True,
        "autoretry_for": (OperationalError, redis.ConnectionError),
        "retry_backoff": 1,
        "retry_backoff_max": 5,
        "retry_jitter": False,
        "max_retries": 60,
    }

    @celery.task(name=STARTED_TASK, **retry)
    def started(submission_id: int, token: str, worker: str = "") -> None:
        recorder.started(submission_id, token, worker)

    @celery.task(name=RECORD_TASK, **retry)
    def record(
        submission_id: int, token: str, result: dict[str, Any], worker: str = "", deliveries: int = 1
    ) -> None:
        recorder.record(submission_id, token, result, worker, deliveries)

    return celery, recorder, sweeper


def healthcheck(settings: Settings, args: list[str]) -> int:
    """0 if the sweeper thread went round recently (``heartbeat_files``: a given file, ``--pid N``'s,
    or every live recorder's on this host)."""
    given = os.environ.get("TORCHDRILL_RECORDER_HEARTBEAT_FILE", "").strip() or None
    return heartbeat_files.check("recorder", given, args, max(30.0, 6 * settings.sweep_interval_s))


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    settings = get_settings()
    if args[:1] == ["healthcheck"]:
        raise SystemExit(healthcheck(settings, args[1:]))
    configure_logging(settings.log_format, service="recorder")
    if not settings.broker_url:
        sys.exit("TORCHDRILL_BROKER_URL must be set: the recorder reads results from the broker")
    # One connection per handler and one for the sweeper, whatever TORCHDRILL_DB_POOL_SIZE says
    # for the web processes (app/kit/db.py).
    db = Database(settings.database_url, settings.recorder_concurrency + 1)
    name = recorder_name()
    celery, recorder, sweeper = create_recorder(settings, db, name)
    # The lease before the first message (leases.py); the reaper at once: results a dead
    # recorder held come back as soon as this one runs.
    lease = Lease(recorder.client, settings.wire, name, settings.lease_s)
    lease.start()
    reaper = ReaperThread(recorder.client, settings, recorder.stats)
    reaper.start()

    @signals.worker_ready.connect(weak=False)
    def _start_sweeper(**_: Any) -> None:
        sweeper.start()
        log.info("recorder ready; sweeping every %g s", settings.sweep_interval_s)

    @signals.worker_shutdown.connect(weak=False)
    def _stop_sweeper(**_: Any) -> None:
        sweeper.stop()
        reaper.stop()
        lease.release()
        heartbeat_files.remove(HEARTBEAT_FILE)
        with contextlib.suppress(Exception):
            db.dispose()

    celery.worker_main(
        worker_argv(RESULTS_QUEUE, settings.recorder_concurrency, name, settings.log_level, args)
    )


if __name__ == "__main__":
    main()
