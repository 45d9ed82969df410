"""runner.engine's defaults: how many sandboxed jobs run at once."""

from __future__ import annotations

import os

import pytest

from runner.engine import default_slots


def test_one_slot_per_cpu_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHDRILL_RUNNER_SLOTS", raising=False)
    assert default_slots() == (os.cpu_count() or 1)


def test_the_slots_can_be_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCHDRILL_RUNNER_SLOTS", " 5 ")
    assert default_slots() == 5
    monkeypatch.setenv("TORCHDRILL_RUNNER_SLOTS", "")
    assert default_slots() == (os.cpu_count() or 1)


@pytest.mark.parametrize("raw", ["0", "-2", "two"])
def test_a_bad_slot_count_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("TORCHDRILL_RUNNER_SLOTS", raw)
    with pytest.raises(ValueError, match="TORCHDRILL_RUNNER_SLOTS"):
        default_slots()
