"""The runner as a Celery worker: judge jobs from the ``judge`` queue, answer on ``results``.

A runner container holds the broker URL and nothing else: no database credentials, no app
secret. A ``judge`` message carries everything a job needs (code, tests, expectations, limits)
and an opaque token; the verdict goes back as a ``record`` message that the trusted recorder
(``app.scaleout.recorder``) checks and stores exactly once.

Delivery guarantees, and where each one lives:

* **Late acknowledgement, and a lease**: a message is acknowledged only after its result was
  published, so a worker killed mid-job (even with SIGKILL) leaves it in its own unacknowledged
  set; its lease (``leases.py``) runs out within seconds and a recorder's reaper puts what it held
  back at the front of the queue. The broker's ``visibility_timeout`` stays as the fallback.
* **Prefetch of one job per free sandbox**: a thread pool of ``slots`` threads with a prefetch
  multiplier of 1 reserves at most ``slots`` messages, each of which starts at once.
* **Bounded retries**: every delivery increments a per-submission counter in the broker; past
  ``max_deliveries`` the job is not run again and an ``internal_error`` verdict is sent instead
  (a job that crashes its worker must not crash every worker in turn).
* **Duplicates**: a job delivered twice may be judged twice; the recorder keeps the first verdict.
  A job whose submission is already finished is skipped without running.

This module never imports ``app``; the names both sides share live in ``runner.transport.wire``.

``python -m runner.transport.celery_worker`` starts a worker (settings: ``worker_settings.py``);
``... healthcheck [--pid N]`` checks a heartbeat (``heartbeat_files.py``). A warm shutdown
(SIGTERM) removes the sandbox's cgroups and the heartbeat file.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import sys
import threading
import time
from typing import Any

import redis
from celery import Celery, signals
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from runner.engine import default_slots
from runner.jobs import Job, JudgeResult
from runner.logs import JsonFormatter, SubmissionFilter, TextFormatter, submission_context
from runner.transport import heartbeat_files
from runner.transport.leases import Lease
from runner.transport.wire import (
    ADHOC_TASK,
    HEARTBEAT_TTL_S,
    JUDGE_QUEUE,
    JUDGE_TASK,
    PUBLISH_RETRY,
    RECORD_TASK,
    REPLY_TTL_S,
    RESULTS_QUEUE,
    STARTED_TASK,
    celery_config,
    direct,
    worker_argv,
)
from runner.transport.worker_settings import WorkerSettings

SETTINGS = WorkerSettings.from_env()
WIRE = SETTINGS.wire
BROKER_URL = SETTINGS.broker_url
SLOTS = default_slots()  # TORCHDRILL_RUNNER_SLOTS, else one per CPU
MAX_DELIVERIES = SETTINGS.max_deliveries
HEARTBEAT_FILE = SETTINGS.heartbeat_file

app = Celery("torchdrill-runner")
app.conf.update(celery_config(BROKER_URL, SETTINGS.visibility_timeout_s, WIRE, owner=SETTINGS.worker_name))

log = logging.getLogger("runner.worker")


def configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(SubmissionFilter())
    if SETTINGS.log_format == "json":
        handler.setFormatter(JsonFormatter("runner"))
    else:
        handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(SETTINGS.log_level)
    # Celery's own per-task lines cannot carry the submission id; ours say the same with it.
    for name in ("celery.worker.strategy", "celery.app.trace"):
        logging.getLogger(name).setLevel(logging.WARNING)


# --- the warm runner of this process -----------------------------------------------------------
_runner: Any = None
_runner_lock = threading.Lock()
_redis: redis.Redis | None = None


def get_judge() -> Any:
    """The process's Runner with ``SLOTS`` sandbox slots (one per pool thread)."""
    global _runner
    with _runner_lock:
        if _runner is None:
            from runner.engine import Runner

            _runner = Runner(max_concurrent=SLOTS)
        return _runner


def broker_redis() -> redis.Redis:
    """A plain client on the broker for the delivery counters and heartbeats.

    Like result publishing (``PUBLISH_RETRY``), its commands wait through a Redis restart (about
    two minutes) instead of failing the job that is being judged.
    """
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(
            BROKER_URL,
            socket_timeout=10,
            socket_connect_timeout=5,
            retry=Retry(ExponentialBackoff(cap=2.0, base=0.2), 60),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        )
    return _redis


def _send(task: str, **kwargs: Any) -> None:
    app.send_task(task, kwargs=kwargs, retry=True, retry_policy=PUBLISH_RETRY, **direct(RESULTS_QUEUE))


@app.task(name=JUDGE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)
def judge(self: Any, submission_id: int, token: str, job: dict[str, Any], attempt: int = 1) -> None:
    """Judge one submission and publish its verdict (never raises for anything the learner did)."""
    with submission_context(submission_id):
        client = broker_redis()
        if client.exists(WIRE.done_key(submission_id)):
            log.info("submission already has its verdict; job skipped (attempt %s)", attempt)
            return
        deliveries = int(client.incr(WIRE.deliveries_key(submission_id)))
        client.expire(WIRE.deliveries_key(submission_id), 7 * 24 * 3600)
        worker = str(self.request.hostname or socket.gethostname())
        if deliveries > MAX_DELIVERIES:
            log.error("delivered %s times without a verdict; giving up", deliveries)
            result = JudgeResult.internal_error(
                f"The judge stopped {deliveries - 1} times while running this submission "
                "(not your fault); it was not retried again. Please submit again.",
                "redelivered",
            )
        else:
            if deliveries > 1:
                log.warning("redelivered (delivery %s, attempt %s)", deliveries, attempt)
            _send(STARTED_TASK, submission_id=submission_id, token=token, worker=worker)
            started = time.perf_counter()
            try:
                result = get_judge().judge(Job.from_dict(job))
            except Exception as exc:  # a malformed job or a broken sandbox is the platform's fault
                log.exception("the job could not be judged")
                result = JudgeResult.internal_error(
                    f"The judge failed to run this submission (not your fault): {exc}", "runner_exception"
                )
            log.info(
                "judged: %s (%s/%s) in %.0f ms",
                result.verdict,
                result.passed,
                result.total,
                (time.perf_counter() - started) * 1000,
            )
        _send(
            RECORD_TASK,
            submission_id=submission_id,
            token=token,
            result=result.to_dict(),
            worker=worker,
            deliveries=deliveries,
        )


@app.task(name=ADHOC_TASK, acks_late=True, reject_on_worker_lost=True)
def adhoc(kind: str, payload: dict[str, Any], reply_key: str) -> None:
    """Judge a job or compute a problem's expectations for a caller waiting on ``reply_key``.

    Used by authoring (validation, publishing) in a web process that has no sandbox. The
    answer is pushed on a Redis list the caller blocks on; nothing is stored in a database.
    """
    from runner.engine import ExpectationError
    from runner.format.problem import ProblemFormatError, build_problem

    reply: dict[str, Any]
    try:
        if kind == "judge":
            reply = {"result": get_judge().judge(Job.from_dict(payload)).to_dict()}
        elif kind == "expectations":
            problem = build_problem(payload["slug"], payload["files"])
            reply = {"expectations": get_judge().compute_expectations(problem).to_dict()}
        else:
            reply = {"error": f"unknown request {kind!r}", "kind": "internal"}
    except (ExpectationError, ProblemFormatError) as exc:
        reply = {"error": str(exc), "kind": "expectation"}
    except Exception as exc:
        log.exception("ad-hoc %s request failed", kind)
        reply = {"error": f"the runner failed: {exc}", "kind": "internal"}
    client = broker_redis()
    client.rpush(reply_key, json.dumps(reply))
    client.expire(reply_key, REPLY_TTL_S)


# --- heartbeat: pool size for /metrics, runtime versions for pages, liveness for compose ---------
_stop = threading.Event()


def _heartbeat_once(name: str) -> None:
    runner = get_judge()
    beat = {"ts": time.time(), **runner.stats()}
    with contextlib.suppress(Exception):  # a sandbox that is restarting still gets a heartbeat
        beat["runtime"] = runner.runtime_info()
    HEARTBEAT_FILE.write_text(json.dumps(beat))
    with contextlib.suppress(redis.RedisError):  # the broker may be restarting: try again next time
        broker_redis().hset(WIRE.runners_key, name, json.dumps(beat))


def _heartbeat_loop(name: str, every_s: float) -> None:
    while not _stop.wait(every_s):
        try:
            _heartbeat_once(name)
        except Exception:
            log.exception("heartbeat failed")


_lease: Lease | None = None


def _on_ready(sender: Any = None, **_: Any) -> None:
    name = getattr(sender, "hostname", None) or SETTINGS.worker_name
    _heartbeat_once(name)  # also warms the sandbox before the first job
    threading.Thread(target=_heartbeat_loop, args=(name, 5.0), name="heartbeat", daemon=True).start()
    log.info("runner worker %s ready with %s sandbox slots", name, SLOTS)


def _on_shutdown(sender: Any = None, **_: Any) -> None:
    """A warm shutdown: Celery has let running jobs finish and put prefetched ones back."""
    _stop.set()
    with contextlib.suppress(Exception):
        broker_redis().hdel(WIRE.runners_key, getattr(sender, "hostname", None) or SETTINGS.worker_name)
    if _lease is not None:
        _lease.release()
    if _runner is not None:  # the zygote, its spares and every job group: no cgroup left behind
        _runner.close()
    heartbeat_files.remove(HEARTBEAT_FILE)
    log.info("runner worker stopped; its sandbox and cgroups are removed")


def healthcheck(args: list[str], max_age_s: float = HEARTBEAT_TTL_S) -> int:
    """0 if the worker wrote a heartbeat recently (see ``heartbeat_files``)."""
    given = os.environ.get("TORCHDRILL_HEARTBEAT_FILE", "").strip() or None
    return heartbeat_files.check("runner", given, args, max_age_s)


def main(argv: list[str] | None = None) -> None:
    global _lease
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["healthcheck"]:
        raise SystemExit(healthcheck(args[1:]))
    SETTINGS.check_broker()
    configure_logging()
    if not SETTINGS.broker_url_given:
        log.warning("TORCHDRILL_BROKER_URL is not set: using %s (development only)", BROKER_URL)
    # Connected here, not at import: the recorder imports this module for the wire names and must
    # not start a sandbox when its own worker becomes ready.
    signals.worker_ready.connect(_on_ready, weak=False)
    signals.worker_shutdown.connect(_on_shutdown, weak=False)
    # The lease before the first message: a message this worker takes is always one the reaper
    # can attribute to it (leases.py).
    _lease = Lease(broker_redis(), WIRE, SETTINGS.worker_name, SETTINGS.lease_s)
    _lease.start()
    app.worker_main(worker_argv(JUDGE_QUEUE, SLOTS, SETTINGS.worker_name, SETTINGS.log_level, args))


if __name__ == "__main__":
    main()
