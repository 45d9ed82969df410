"""The guard's events, as both sides of the sandbox's wall know them: their MAC and its key.

The guard (``runner.testing.guard``) sends each event with a MAC under a per-job key the host made
(:func:`new_key`); the host (``runner.judging.observations``) verifies it with :func:`event_mac`.
"""

from __future__ import annotations

import hashlib
import secrets

MODIFIED = "Modifying or inspecting the judge is not allowed"  # what a refused inspection reports

MAC_BYTES = 32  # the MAC's length (BLAKE2b's digest size): 64 hex digits on the wire


def event_mac(key: bytes | bytearray, body: bytes) -> str:
    """An event's MAC, as hex: keyed BLAKE2b (RFC 7693's keyed mode, a MAC by design, in the
    interpreter's own C code) of its body under the job's key. The guard computes the same
    (``runner.testing.guard``'s emitter holds ``_blake2.blake2b`` and :data:`MAC_BYTES` as constants).
    Chosen over HMAC-SHA256 (OpenSSL's) for its cost in a fresh spare: a job's ~28 events took
    ~61 µs of CPU against ~141 µs (forks of a warm zygote; docs/benchmarks.md, the seventeenth
    pass)."""
    return hashlib.blake2b(body, key=key, digest_size=MAC_BYTES).hexdigest()


def new_key() -> bytes:
    return secrets.token_bytes(32)
