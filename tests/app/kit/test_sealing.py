"""Sealed values open only with the same secret key, purpose and context; keyed hashes need the key."""

from __future__ import annotations

import pytest

from app.kit.sealing import SealBroken, keyed_hash, seal, unseal

KEY = "k" * 48


def test_a_sealed_value_opens_with_the_same_key_purpose_and_context() -> None:
    sealed = seal(KEY, "totp-secret", b"JBSWY3DPEHPK3PXP", b"user:7")
    assert b"JBSWY3DPEHPK3PXP".decode() not in sealed and sealed.startswith("v1.")
    assert seal(KEY, "totp-secret", b"JBSWY3DPEHPK3PXP", b"user:7") != sealed  # a fresh nonce each time
    assert unseal(KEY, "totp-secret", sealed, b"user:7") == b"JBSWY3DPEHPK3PXP"


@pytest.mark.parametrize(
    "key, purpose, context",
    [
        ("another" * 8, "totp-secret", b"user:7"),  # the secret key changed
        (KEY, "recovery-code", b"user:7"),  # another purpose's key
        (KEY, "totp-secret", b"user:8"),  # copied onto another user's row
    ],
)
def test_it_does_not_open_otherwise(key: str, purpose: str, context: bytes) -> None:
    sealed = seal(KEY, "totp-secret", b"secret", b"user:7")
    with pytest.raises(SealBroken):
        unseal(key, purpose, sealed, context)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda s: s[:-2] + ("A" if s[-2] != "A" else "B") + s[-1],  # a flipped byte
        lambda s: "v2" + s[2:],  # an unknown format
        lambda s: s[:10],  # cut short
        lambda s: s + "!!",  # not base64
        lambda s: "",
    ],
)
def test_a_tampered_value_does_not_open(tamper) -> None:  # type: ignore[no-untyped-def]
    sealed = seal(KEY, "totp-secret", b"secret", b"user:7")
    with pytest.raises(SealBroken):
        unseal(KEY, "totp-secret", tamper(sealed), b"user:7")


def test_keyed_hashes_depend_on_the_key_and_purpose() -> None:
    base = keyed_hash(KEY, "recovery-code", b"7:abcd")
    assert base == keyed_hash(KEY, "recovery-code", b"7:abcd") and len(base) == 64
    assert base != keyed_hash("other" * 10, "recovery-code", b"7:abcd")
    assert base != keyed_hash(KEY, "totp-secret", b"7:abcd")
    assert base != keyed_hash(KEY, "recovery-code", b"8:abcd")
