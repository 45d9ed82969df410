"""The per-user API request limit: a sliding one-minute window.

Embedded (one web process) the window lives in the process. Scaled out (``TORCHDRILL_BROKER_URL``
set, several web processes behind a proxy) it lives in Redis, so the limit is the same however
many processes answer a user. Submissions have a second, stricter limit counted in the database.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass
from typing import Protocol

import redis
from fastapi import Request

from app.kit.errors import TooManyRequests
from app.kit.settings import Settings

log = logging.getLogger(__name__)
WINDOW_S = 60.0


class RequestLimiter(Protocol):
    def hit(self, user_id: int, per_minute: int) -> None:
        """Count one request of ``user_id``; raise ``TooManyRequests`` beyond ``per_minute``."""


@dataclass(frozen=True)
class Quota:
    """One limiter's window with its allowance a minute (a setting): what a write spends."""

    limiter: RequestLimiter
    per_minute: int

    def hit(self, user_id: int) -> None:
        self.limiter.hit(user_id, self.per_minute)


def _refuse(per_minute: int, wait_s: float, noun: str = "API requests") -> TooManyRequests:
    return TooManyRequests(
        f"At most {per_minute} {noun} a minute; try again in {max(1, math.ceil(wait_s))} s.",
        retry_after_s=wait_s,
    )


class LocalRequestLimiter:
    """The window of each user's request times, in this process."""

    def __init__(self, noun: str = "API requests") -> None:
        self.noun = noun
        self._lock = threading.Lock()
        self._hits: dict[int, deque[float]] = {}

    def hit(self, user_id: int, per_minute: int, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            hits = self._hits.setdefault(user_id, deque())
            while hits and hits[0] <= now - WINDOW_S:
                hits.popleft()
            if len(hits) >= per_minute:
                raise _refuse(per_minute, hits[0] + WINDOW_S - now, self.noun)
            hits.append(now)
            if len(self._hits) > 10_000:  # forget idle users now and then
                for uid in [u for u, h in self._hits.items() if not h or h[-1] <= now - WINDOW_S]:
                    del self._hits[uid]


# Atomic on the server, timed by the server's clock (web hosts' clocks may differ): drop what left
# the window, refuse at the limit (answering the oldest time still in it), else count this one.
_HIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tostring(oldest[2] + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('EXPIRE', KEYS[1], math.ceil(window) + 1)
return ''
"""


class RedisRequestLimiter:
    """The window in a Redis sorted set per user, shared by every web process.

    If Redis cannot be reached the request is let through (and logged): the limit protects the
    service, it must not be what takes the API down.
    """

    def __init__(
        self, client: redis.Redis, prefix: str = "torchdrill:api-requests:", noun: str = "API requests"
    ) -> None:
        """``prefix``: where the windows live (the deployment's ``<namespace>:api-requests:``);
        ``noun`` says what is counted in the refusal."""
        self.client = client
        self.prefix = prefix
        self.noun = noun
        self._script = client.register_script(_HIT)

    def hit(self, user_id: int, per_minute: int) -> None:
        try:
            wait = self._script(
                keys=[f"{self.prefix}{user_id}"], args=[per_minute, WINDOW_S, uuid.uuid4().hex]
            )
        except redis.RedisError as exc:
            log.warning("request limit not applied (Redis unavailable: %s)", exc)
            return
        if wait:
            raise _refuse(per_minute, float(wait), self.noun)


def make_limiter(
    settings: Settings, window: str = "api-requests:", noun: str = "API requests"
) -> RequestLimiter:
    """A limiter of its own window: ``window`` (a key in the deployment's namespace, in Redis) names
    what it counts, ``noun`` says it in the refusal (the API's requests by default; test reports
    have theirs)."""
    if settings.broker_url:
        from app.kit.broker import make_redis

        return RedisRequestLimiter(make_redis(settings), settings.wire.key(window), noun)
    return LocalRequestLimiter(noun)


_MAKING = threading.Lock()


def app_limiter(
    request: Request, window: str = "api-requests:", noun: str = "API requests"
) -> RequestLimiter:
    """The app's one limiter of ``window`` (:func:`make_limiter` on first use), kept by window in
    ``app.state.limiters`` so that every request of the process counts in the same window (made
    under a lock: sync routes ask from several threads at once)."""
    state = request.app.state
    with _MAKING:
        limiters: dict[str, RequestLimiter] | None = getattr(state, "limiters", None)
        if limiters is None:
            limiters = state.limiters = {}
        if window not in limiters:
            limiters[window] = make_limiter(state.settings, window, noun)
        return limiters[window]
