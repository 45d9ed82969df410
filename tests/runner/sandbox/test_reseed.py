"""A spare's fresh random state (runner.sandbox.seeding.reseed), numpy's global generator in particular."""

from __future__ import annotations

from typing import Any

import numpy

from runner.sandbox import seeding
from tests.runner.processes import in_fork


def _draws(reseed: bool) -> Any:
    def child(_records: int) -> list[float]:
        if reseed:
            seeding.reseed()
        return [float(x) for x in numpy.random.rand(4)]

    return in_fork(child)[0]


def test_without_reseeding_every_child_would_draw_the_parents_numbers() -> None:
    seeding.numpy_seeder()  # decided as in the zygote, before any fork
    assert _draws(reseed=False) == _draws(reseed=False)  # so the check below can fail


def test_each_reseeded_child_draws_its_own_numbers_from_numpys_global_generator() -> None:
    seeding.numpy_seeder()
    draws = [_draws(reseed=True) for _ in range(3)]
    assert len({tuple(d) for d in draws}) == 3
    assert all(0.0 <= x < 1.0 for d in draws for x in d)
