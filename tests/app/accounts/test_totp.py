"""TOTP codes (RFC 6238's test vector), ±1 step of drift, no step twice, and recovery codes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyotp

from app.accounts import totp

# RFC 6238, appendix B: the ASCII secret "12345678901234567890", SHA-1, at 59 s -> 94287082 (8 digits).
RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
NOW = datetime(2026, 12, 5, 12, 0, 10, tzinfo=UTC)


def test_codes_are_the_rfc_ones() -> None:
    assert totp.code_at(RFC_SECRET, 59 // 30) == "287082"  # the last 6 of the 8 digits
    assert totp.step_at(datetime(1970, 1, 1, 0, 0, 59, tzinfo=UTC)) == 1


def test_one_step_of_drift_either_way_is_accepted_and_no_more() -> None:
    secret = totp.new_secret()
    now = totp.step_at(NOW)
    for offset, accepted in ((-2, False), (-1, True), (0, True), (1, True), (2, False)):
        found = totp.matching_step(secret, totp.code_at(secret, now + offset), NOW, None)
        assert (found == now + offset) is accepted, offset
    assert totp.matching_step(secret, pyotp.TOTP(secret).at(NOW), NOW, None) == now  # what apps make


def test_a_step_at_or_before_the_last_one_used_is_refused() -> None:
    secret = totp.new_secret()
    now = totp.step_at(NOW)
    code = totp.code_at(secret, now)
    assert totp.matching_step(secret, code, NOW, now - 1) == now
    assert totp.matching_step(secret, code, NOW, now) is None  # replayed
    assert totp.matching_step(secret, totp.code_at(secret, now - 1), NOW, now) is None  # older
    assert totp.matching_step(secret, totp.code_at(secret, now + 1), NOW, now) == now + 1
    later = NOW + timedelta(seconds=totp.PERIOD_S)
    assert totp.matching_step(secret, code, later, now) is None


def test_what_is_not_six_digits_is_never_a_totp_code() -> None:
    secret = totp.new_secret()
    code = totp.code_at(secret, totp.step_at(NOW))
    for typed in (code + "0", code[:5], " " + code, "٣" * 6, "", "abcdef"):
        assert totp.matching_step(secret, typed, NOW, None) is None, typed
    assert totp.normalise(f" {code[:3]}-{code[3:]} ") == code
    assert totp.looks_like_totp(code) and not totp.looks_like_totp("٣" * 6)


def test_recovery_codes_are_many_distinct_and_readable() -> None:
    codes = totp.new_recovery_codes()
    assert len(codes) == len(set(codes)) == totp.RECOVERY_CODES
    for code in codes:
        raw = code.replace("-", "")
        assert len(raw) == totp.RECOVERY_LENGTH and set(raw) <= set(totp.RECOVERY_ALPHABET)
        assert not totp.looks_like_totp(totp.normalise(code))


def test_the_setup_uri_and_qr_code() -> None:
    uri = totp.provisioning_uri(RFC_SECRET, "ada@example.com")
    assert uri.startswith("otpauth://totp/Torchdrill:ada%40example.com?") and f"secret={RFC_SECRET}" in uri
    svg = totp.qr_svg(uri)
    assert svg.startswith("<svg") and "<script" not in svg and "ada" not in svg
