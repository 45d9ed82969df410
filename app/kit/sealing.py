"""Values the database keeps but cannot use alone: sealed (AES-256-GCM) or keyed-hashed (HMAC)
with keys derived from ``TORCHDRILL_SECRET_KEY``.

A copy of the database (a backup, a read-only SQL injection) then holds nothing that signs anyone
in: a sealed value opens only with the secret key and only for the row it was sealed for (the
``context``, e.g. the user's id, is authenticated with it), and a keyed hash cannot be brute-forced
offline. Each purpose has its own key (HKDF with the purpose as ``info``). Changing the secret key
makes every sealed value unreadable: docs/deploy.md says what that means for operators.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from functools import lru_cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

VERSION = "v1"
NONCE_BYTES = 12


class SealBroken(Exception):
    """A sealed value that does not open: another secret key, another row, or tampered with."""


@lru_cache(maxsize=32)
def derive_key(secret_key: str, purpose: str) -> bytes:
    """A 256-bit key for one purpose, derived from the site's secret key (HKDF-SHA256)."""
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=f"torchdrill:{purpose}".encode())
    return hkdf.derive(secret_key.encode("utf-8"))


def seal(secret_key: str, purpose: str, plaintext: bytes, context: bytes) -> str:
    """``plaintext`` encrypted and authenticated together with ``context`` (not stored)."""
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(derive_key(secret_key, purpose)).encrypt(nonce, plaintext, context)
    return f"{VERSION}.{base64.urlsafe_b64encode(nonce + sealed).decode('ascii')}"


def unseal(secret_key: str, purpose: str, sealed: str, context: bytes) -> bytes:
    """The plaintext of :func:`seal`; :class:`SealBroken` if it does not open with this key and context."""
    version, _, body = sealed.partition(".")
    if version != VERSION:
        raise SealBroken(f"unknown sealed format {version!r}")
    try:
        raw = base64.b64decode(body.encode("ascii"), altchars=b"-_", validate=True)
        return AESGCM(derive_key(secret_key, purpose)).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], context)
    except (InvalidTag, ValueError) as exc:
        raise SealBroken("the value does not open with this secret key") from exc


def keyed_hash(secret_key: str, purpose: str, data: bytes) -> str:
    """HMAC-SHA256 of ``data`` (hex) under the purpose's key: comparable, not reversible offline."""
    return hmac.new(derive_key(secret_key, purpose), data, hashlib.sha256).hexdigest()
