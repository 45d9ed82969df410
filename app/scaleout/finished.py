"""The announcement that a verdict was recorded: set a key and publish the id (Redis pub/sub).

The recorder announces; every web process listens (:class:`FinishedListener`) and wakes its
``?wait=true`` requests; runner workers check the key to skip a job already judged.
"""

from __future__ import annotations

import contextlib
import logging
import threading

import redis

from app.submissions.dispatch import ResultWaiter
from runner.transport.names import Wire

log = logging.getLogger(__name__)


def announce_finished(client: redis.Redis, wire: Wire, submission_id: int) -> None:
    pipe = client.pipeline(transaction=False)
    pipe.set(wire.done_key(submission_id), "1", ex=7 * 24 * 3600)
    pipe.publish(wire.finished_channel, str(submission_id))
    pipe.execute()


class FinishedListener:
    """Wakes this process's ``ResultWaiter`` when any recorder announces a verdict (Redis pub/sub).

    Only this deployment's channel is heard (``wire.finished_channel``), and a wake-up is a hint,
    never an answer: the waiter reads the database and answers only a finished submission. A
    notification missed (Redis restarting, a recorder killed between saving and announcing)
    costs a waiter ``TORCHDRILL_WAIT_RECHECK_S`` at most: it reads the database that often anyway.
    """

    def __init__(self, client: redis.Redis, wire: Wire, waiter: ResultWaiter) -> None:
        self.client = client
        self.wire = wire
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
                pubsub.subscribe(self.wire.finished_channel)
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
