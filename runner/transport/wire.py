"""The wire between web, recorder and runner workers: queues, task names, keys, Celery settings.

Both sides import these names from here, and nothing here has a side effect at import time: no
Celery app is built, no connection is opened, no environment is read. The runner worker
(``runner.transport.celery_worker``) builds its Celery app from :func:`celery_config`; the web's dispatcher
and the trusted recorder (``app.submissions``) build theirs from the same function.
"""

from __future__ import annotations

import ssl
from typing import Any

import redis
from kombu.transport import redis as kombu_redis

from runner.transport.names import Wire, unacked_keys

__all__ = ["Wire", "unacked_keys"]

JUDGE_QUEUE = "judge"
RESULTS_QUEUE = "results"
JUDGE_TASK = "torchdrill.judge"
STARTED_TASK = "torchdrill.started"
RECORD_TASK = "torchdrill.record"
ADHOC_TASK = "torchdrill.adhoc"  # not a submission: authoring's expectations and validation runs
REPLY_TTL_S = 600
HEARTBEAT_TTL_S = 30.0


def celery_config(
    broker_url: str, visibility_timeout_s: float, wire: Wire, owner: str | None = None
) -> dict[str, Any]:
    """Settings both sides share; the restore sweep runs often enough for the visibility timeout.

    ``owner``: the consumer's name, for its own unacknowledged set (a process that only publishes
    needs none).
    """
    restore_every = max(1, int(visibility_timeout_s / 4))
    own = unacked_keys(owner) if owner else {}
    # The transport is named explicitly (RedisTransport below), so kombu no longer reads TLS off a
    # rediss:// scheme: say it here, verifying the server's certificate (kombu's own default for
    # rediss:// without options is not to verify it).
    verified = {"ssl_cert_reqs": ssl.CERT_REQUIRED}
    tls = {"broker_use_ssl": verified} if broker_url.startswith("rediss://") else {}
    return tls | {
        "broker_url": broker_url,
        "broker_transport_options": {
            "visibility_timeout": visibility_timeout_s,
            "unacked_restore_interval": restore_every,
            "unacked_restore_throttle": 1,
            "socket_timeout": 10,
            "socket_connect_timeout": 5,
            "health_check_interval": 10,
            "global_keyprefix": wire.prefix,
            **own,
        },
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,  # a restarted Redis is waited for, forever
        "task_serializer": "json",
        "accept_content": ["json"],
        "task_ignore_result": True,
        "result_backend": None,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_acks_on_failure_or_timeout": True,
        "worker_prefetch_multiplier": 1,
        "worker_hijack_root_logger": False,
        "worker_redirect_stdouts": False,
        "task_routes": {
            JUDGE_TASK: {"queue": JUDGE_QUEUE},
            STARTED_TASK: {"queue": RESULTS_QUEUE},
            RECORD_TASK: {"queue": RESULTS_QUEUE},
        },
        "task_default_queue": JUDGE_QUEUE,
        "task_create_missing_queues": True,
        "worker_send_task_events": False,
        "task_send_sent_event": False,
        "broker_transport": "runner.transport.wire:RedisTransport",
    }


class _Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            raise redis.ConnectionError("the broker connection was closed")
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)
        return params


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport, but a closed connection fails like a lost one.

    When Redis goes away while messages are unacknowledged, Celery 5.7.0 closes the connection it
    has just collected, and the channel then still acknowledges or puts back those messages
    through a transport that has no client left: kombu raises ``AttributeError``, which no
    handler expects, and the worker dies ("Unrecoverable error"). Raising a connection error
    instead lets Celery log it and reconnect. Nothing is lost: the messages stay in Redis's
    unacknowledged set and come back after the visibility timeout (a job that was judged
    meanwhile is then skipped). ``tests/scale/test_faults.py`` restarts Redis under load.
    """

    Channel = _Channel


# Publishing a result retries through a Redis restart instead of failing the job.
PUBLISH_RETRY = {"max_retries": 60, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2.0}


def direct(queue: str) -> dict[str, str]:
    """Publish options that put a message straight on ``queue``'s list.

    Routing through a named exchange needs kombu's binding table in Redis; a Redis that restarted
    without its data has none until a consumer declares its queue again, and until then kombu
    drops such messages without an error. The default exchange needs no table.
    """
    return {"exchange": "", "routing_key": queue}


def worker_argv(queue: str, concurrency: int, name: str, loglevel: str, extra: list[str]) -> list[str]:
    """Celery worker arguments shared by runner workers and the recorder: one queue, a thread
    pool, one prefetched message per thread (late acknowledgement does the rest), no gossip."""
    return [
        "worker",
        "--queues",
        queue,
        "--pool",
        "threads",
        "--concurrency",
        str(concurrency),
        "--prefetch-multiplier",
        "1",
        "--hostname",
        name,
        "--without-gossip",
        "--without-mingle",
        "--loglevel",
        loglevel,
        *extra,
    ]
