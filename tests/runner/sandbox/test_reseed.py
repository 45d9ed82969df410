"""A spare's fresh random state (runner.sandbox.seeding.reseed), numpy's global generator in particular,
whose state a child now writes directly (runner.sandbox.seeding.numpy_reseeder)."""

from __future__ import annotations

from typing import Any

import numpy
import pytest

from bench import forked
from runner.sandbox import seeding


def _draws(reseed: bool) -> Any:
    def child(_records: int) -> list[float]:
        if reseed:
            seeding.reseed()
        return [float(x) for x in numpy.random.rand(4)]

    return forked.in_fork(child)[0]


def test_without_reseeding_every_child_would_draw_the_parents_numbers() -> None:
    seeding.numpy_reseeder()  # decided as in the zygote, before any fork
    assert _draws(reseed=False) == _draws(reseed=False)  # so the check below can fail


def test_each_reseeded_child_draws_its_own_numbers_from_numpys_global_generator() -> None:
    seeding.numpy_reseeder()
    draws = [_draws(reseed=True) for _ in range(3)]
    assert len({tuple(d) for d in draws}) == 3
    assert all(0.0 <= x < 1.0 for d in draws for x in d)


def test_the_state_is_written_where_numpy_reads_it() -> None:
    fresh = seeding.numpy_reseeder()
    assert fresh is not None
    generator = numpy.random.mtrand._rand._bit_generator

    def child(_records: int) -> dict[str, Any]:
        before = generator.state["state"]
        fresh()
        after = generator.state["state"]
        return {
            "key_changed": [int(k) for k in before["key"]] != [int(k) for k in after["key"]],
            "pos": int(after["pos"]),
            "gauss": list(numpy.random.mtrand._rand.get_state()[3:]),
        }

    seen = forked.in_fork(child)[0]
    assert seen == {"key_changed": True, "pos": seeding.MT_WORDS, "gauss": [0, 0.0]}


def test_the_direct_write_is_what_runs_not_a_silent_fallback_to_numpy_random_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The test above passes on the fallback too (numpy.random.seed also gives fresh state): this
    # one fails if the layout check refused the direct write, or if it ever calls numpy's seed.
    fresh = seeding.numpy_reseeder()
    assert fresh is not None

    def fallback(*_args: object) -> None:
        raise AssertionError("numpy.random.seed was called: the direct write fell back")

    monkeypatch.setattr(numpy.random, "seed", fallback)
    fresh()
