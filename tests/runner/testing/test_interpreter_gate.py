"""The integrity guard runs only on the interpreter it was built for, and the judge refuses to
start anywhere else: faked through ``runner.testing.sealed.BUILT_FOR``, the one statement of which
interpreter sealing rewrites bytecode for."""

from __future__ import annotations

import os

import pytest

from runner.engine import Runner
from runner.sandbox.bwrap import SandboxUnavailable
from runner.testing import guard, sealed

Interpreter = tuple[str, tuple[int, int]]
OTHER_VERSIONS: list[Interpreter] = [
    ("cpython", (3, 12)),
    ("cpython", (3, 10)),
    ("pypy", (3, 11)),
    ("graalpy", (3, 11)),
]


def test_this_interpreter_is_the_one_the_guard_was_built_for() -> None:
    # The precondition of every test below, so that each of them can fail.
    assert sealed.supported()
    sealed.require_supported()


@pytest.mark.parametrize("built_for", OTHER_VERSIONS)
def test_sealing_refuses_another_interpreter(monkeypatch: pytest.MonkeyPatch, built_for: Interpreter) -> None:
    monkeypatch.setattr(sealed, "BUILT_FOR", built_for)
    assert not sealed.supported()
    with pytest.raises(sealed.UnsupportedInterpreter, match=r"built for .*; this is CPython 3\.11"):
        sealed.require_supported()

    def template() -> int:
        return len("sealed")

    with pytest.raises(sealed.UnsupportedInterpreter):
        sealed.seal(template)


def test_a_job_s_guard_is_never_silently_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sealed, "BUILT_FOR", ("cpython", (3, 12)))
    read, write = os.pipe()
    try:
        with pytest.raises(sealed.UnsupportedInterpreter, match=r"CPython 3\.12"):
            guard.PendingGuard(b"k" * 32, write).install()
        # The host asking for no guard (no key) is not a refusal.
        assert guard.PendingGuard(b"", write).install() is None
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.parametrize("built_for", OTHER_VERSIONS[:1] + OTHER_VERSIONS[2:3])
def test_the_judge_refuses_to_start_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch, built_for: Interpreter
) -> None:
    monkeypatch.setattr(sealed, "BUILT_FOR", built_for)
    with pytest.raises(SandboxUnavailable, match="integrity guard is built for") as refused:
        Runner().start()
    message = str(refused.value)
    assert "this is CPython 3.11" in message and "never judges without its guard" in message
