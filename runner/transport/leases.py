"""Leases: how a dead consumer's messages come back in seconds rather than after the visibility
timeout.

Every consumer of a queue (runner worker, recorder) holds its unacknowledged messages in a set of
its own (``wire.unacked_keys``) and renews a lease key in Redis (``<namespace>:lease:<name>``,
``TORCHDRILL_LEASE_S``, renewed three times per period). Messages are still acknowledged late,
when their job is done, so the broker's state follows the job's: a message is unacknowledged
exactly while a consumer holds it. A :class:`Reaper` (in every recorder) notices a lease that is
gone, waits one more lease period of its own (so consumers cut off by a Redis restart renew
before they are judged dead), then puts everything that consumer held back at the front of its
queue: the running job, the prefetched ones, or a recorder's results.

A consumer judged dead that was only slow sees its jobs run again elsewhere; the first verdict
wins (the recorder's conditional update), so nothing is judged twice into two verdicts.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable

import redis

from runner.transport.names import Wire, unacked_keys

log = logging.getLogger(__name__)


class Lease:
    """This consumer's lease, renewed by a daemon thread until :meth:`release`."""

    def __init__(self, client: redis.Redis, wire: Wire, owner: str, lease_s: float) -> None:
        self.client = client
        self.wire = wire
        self.owner = owner
        self.lease_s = lease_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease", daemon=True)

    def renew(self) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.set(self.wire.lease_key(self.owner), str(time.time()), px=max(1, int(self.lease_s * 1000)))
        pipe.sadd(self.wire.consumers_key, self.owner)
        pipe.execute()

    def start(self) -> None:
        self.renew()
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            try:
                self.renew()
            except redis.RedisError as exc:  # the broker restarting: the reaper waits for us
                log.warning("lease not renewed (%s)", type(exc).__name__)

    def release(self) -> None:
        """Stop renewing and give the lease up (a warm shutdown has put its messages back)."""
        self._stop.set()
        with contextlib.suppress(redis.RedisError):
            self.client.delete(self.wire.lease_key(self.owner))


def restore_held(client: redis.Redis, wire: Wire, owner: str) -> int:
    """Put every message ``owner`` holds unacknowledged back at the front of its queue; the count.

    One transaction watching the owner's set, as kombu's own restore does: an acknowledgement
    racing it either happens first (that message is not put back) or makes the transaction retry.
    """
    keys = {name: wire.key(value) for name, value in unacked_keys(owner).items()}
    unacked, index = keys["unacked_key"], keys["unacked_index_key"]

    moved = 0

    def move(pipe: redis.client.Pipeline) -> None:
        nonlocal moved
        held = pipe.hgetall(unacked)
        pipe.multi()
        for raw in held.values():
            message, _exchange, routing_key = json.loads(raw)
            with contextlib.suppress(KeyError, TypeError):
                message["headers"]["redelivered"] = True
            # The default exchange (wire.direct): the routing key is the queue. RPUSH: BRPOP takes
            # from the right, so these are the next messages handed out.
            pipe.rpush(wire.queue_key(routing_key), json.dumps(message))
        pipe.delete(unacked, index)
        moved = len(held)

    client.transaction(move, unacked)
    return moved


class Reaper:
    """Finds consumers whose lease is gone and puts back what they held (see the module doc)."""

    def __init__(
        self,
        client: redis.Redis,
        wire: Wire,
        lease_s: float,
        on_restore: Callable[[str, int], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.wire = wire
        self.lease_s = lease_s
        self.on_restore = on_restore
        self.clock = clock
        self._missing_since: dict[str, float] = {}

    def reap_once(self) -> dict[str, int]:
        """One look: owner -> messages put back, for the consumers found dead this time."""
        try:
            members = self.client.smembers(self.wire.consumers_key)
            owners = sorted(o.decode() if isinstance(o, bytes) else str(o) for o in members)
            pipe = self.client.pipeline(transaction=False)
            for owner in owners:
                pipe.exists(self.wire.lease_key(owner))
            alive = pipe.execute()
        except redis.RedisError:
            self._missing_since.clear()  # what we saw before the gap says nothing now
            raise
        now = self.clock()
        reaped: dict[str, int] = {}
        for owner, has_lease in zip(owners, alive, strict=True):
            if has_lease:
                self._missing_since.pop(owner, None)
                continue
            since = self._missing_since.setdefault(owner, now)
            if now - since < self.lease_s:
                continue
            # Only one reaper acts on an owner (several recorders may run).
            if not self.client.set(self.wire.key(f"reaping:{owner}"), "1", nx=True, ex=30):
                continue
            try:
                moved = restore_held(self.client, self.wire, owner)
                self.client.srem(self.wire.consumers_key, owner)
            finally:
                self.client.delete(self.wire.key(f"reaping:{owner}"))
            self._missing_since.pop(owner, None)
            reaped[owner] = moved
            if moved:
                log.warning("%s lost its lease: %d message(s) it held put back in their queue", owner, moved)
            if self.on_restore is not None:
                self.on_restore(owner, moved)
        return reaped
