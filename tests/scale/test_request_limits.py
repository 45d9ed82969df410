"""The API request limit when several web processes share one Redis (scaled out)."""

from __future__ import annotations

import logging
import threading
import time

import pytest
import redis

from app.kit import limits
from app.kit.errors import TooManyRequests
from app.kit.limits import LocalRequestLimiter, RedisRequestLimiter, make_limiter
from app.kit.settings import Settings
from tests.scale.stack import RedisServer, free_port

pytestmark = pytest.mark.celery


def two_processes(server: RedisServer) -> tuple[RedisRequestLimiter, RedisRequestLimiter]:
    """Two web processes' limiters: separate clients on the same Redis."""
    return (
        RedisRequestLimiter(redis.Redis.from_url(server.url())),
        RedisRequestLimiter(redis.Redis.from_url(server.url())),
    )


def test_the_limit_is_shared_by_every_web_process(redis_server: RedisServer) -> None:
    a, b = two_processes(redis_server)
    for n in range(6):
        (a if n % 2 else b).hit(user_id=4101, per_minute=6)
    with pytest.raises(TooManyRequests) as refused:
        a.hit(user_id=4101, per_minute=6)
    assert 0 < refused.value.retry_after_s <= 60
    b.hit(user_id=4102, per_minute=6)  # another user has a window of their own


def test_the_window_slides(redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "WINDOW_S", 1.0)
    a, b = two_processes(redis_server)
    a.hit(user_id=4201, per_minute=2)
    b.hit(user_id=4201, per_minute=2)
    with pytest.raises(TooManyRequests):
        a.hit(user_id=4201, per_minute=2)
    # The window is one second: poll (with a deadline) until the oldest hit has left it.
    deadline = time.monotonic() + 10
    while True:
        try:
            b.hit(user_id=4201, per_minute=2)
            break
        except TooManyRequests:
            assert time.monotonic() < deadline, "the window never slid"
            threading.Event().wait(0.05)


def test_an_unreachable_redis_lets_requests_through(caplog: pytest.LogCaptureFixture) -> None:
    closed = redis.Redis(port=free_port(), socket_connect_timeout=1)
    limiter = RedisRequestLimiter(closed)
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            limiter.hit(user_id=4301, per_minute=1)
    assert "request limit not applied" in caplog.text


def test_the_broker_setting_picks_the_shared_limiter(redis_server: RedisServer) -> None:
    assert isinstance(make_limiter(Settings(env="development")), LocalRequestLimiter)
    shared = make_limiter(Settings(env="development", broker_url=redis_server.url()))
    assert isinstance(shared, RedisRequestLimiter)


def test_test_reports_count_in_a_window_of_their_own(redis_server: RedisServer) -> None:
    """The reports limiter (``app.reports.deps``) shares Redis, not the API requests' window."""
    from app.reports.deps import LIMIT_WINDOW

    client = redis.Redis.from_url(redis_server.url())
    requests = RedisRequestLimiter(client)
    reports = RedisRequestLimiter(client, "torchdrill:" + LIMIT_WINDOW, "test reports")
    for _ in range(2):
        reports.hit(user_id=4301, per_minute=2)
    with pytest.raises(TooManyRequests) as refused:
        reports.hit(user_id=4301, per_minute=2)
    assert refused.value.detail.startswith("At most 2 test reports a minute")
    requests.hit(user_id=4301, per_minute=2)  # the user's API requests are not counted with them
    requests.hit(user_id=4301, per_minute=2)
