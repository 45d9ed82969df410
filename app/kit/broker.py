"""The broker connection the web processes share (Redis), when the platform is scaled out.

In ``kit`` because several domains need it: submissions' dispatcher and recorder, and the API's
request limiter.
"""

from __future__ import annotations

import redis

from app.kit.settings import Settings


def make_redis(settings: Settings) -> redis.Redis:
    """A plain Redis client on ``TORCHDRILL_BROKER_URL`` (which must be set)."""
    assert settings.broker_url, "TORCHDRILL_BROKER_URL is not set"
    return redis.Redis.from_url(settings.broker_url, socket_timeout=10, socket_connect_timeout=5)
