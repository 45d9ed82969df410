"""Platforms' public keys, fetched from their JWKS URL and cached a few minutes; an unknown
``kid`` (the platform rotated) fetches again at once, at most every few seconds."""

from __future__ import annotations

import threading
import time

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

TTL_S = 300.0
REFETCH_MIN_S = 5.0
TIMEOUT_S = 5.0


class KeysUnavailable(Exception):
    """The platform's JWKS could not be fetched or read."""


class PlatformKeys:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, KeySet]] = {}

    def _fetch(self, url: str) -> KeySet:
        try:
            response = httpx.get(url, timeout=TIMEOUT_S, follow_redirects=False)
            response.raise_for_status()
            keys = KeySet.import_key_set(response.json())
        except (httpx.HTTPError, ValueError, KeyError, TypeError, JoseError) as exc:
            raise KeysUnavailable(
                f"the platform's keys at {url} could not be read ({type(exc).__name__})"
            ) from exc
        with self._lock:
            self._cache[url] = (time.monotonic(), keys)
        return keys

    def get(self, url: str, kid: str | None) -> KeySet:
        """The key set, fresh enough to hold ``kid`` if the platform publishes it."""
        with self._lock:
            cached = self._cache.get(url)
        now = time.monotonic()
        if cached is None or now - cached[0] > TTL_S:
            return self._fetch(url)
        fetched_at, keys = cached
        if kid is not None and all(key.kid != kid for key in keys) and now - fetched_at > REFETCH_MIN_S:
            return self._fetch(url)
        return keys

    def forget(self) -> None:
        with self._lock:
            self._cache.clear()


platform_keys = PlatformKeys()
