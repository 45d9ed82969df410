"""Fresh random state in every spare (none inherited from the zygote), and how each generator
is seeded, decided once in the zygote."""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable


@functools.cache
def torch_seeder() -> Callable[[int], object]:
    """How :func:`reseed` seeds torch, decided once in the zygote (:func:`warm_up`).

    Where torch has no accelerator at all (none built in, none registered), its CPU generator is
    the only one: seeding it alone is what ``torch.manual_seed`` comes to, after steps that each
    find no device to seed (~0.25 ms of CPU and ~70 copy-on-write faults in every spare, measured
    in forks of a warm zygote). Otherwise ``torch.manual_seed`` seeds every device.
    """
    import torch

    if torch.accelerator.current_accelerator() is None:
        return torch.default_generator.manual_seed
    return torch.manual_seed


@functools.cache
def numpy_seeder() -> Callable[[int], object] | None:
    """``numpy.random.seed`` (numpy's global generator: ``numpy.random.rand`` and the other
    functions of ``numpy.random``), looked up once in the zygote (:func:`warm_up`); None
    without numpy."""
    try:
        import numpy.random
    except ImportError:
        return None
    return numpy.random.seed


def reseed() -> None:
    """Fresh random state for every child: none is inherited from the zygote."""
    seed = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
    random.seed(seed)
    torch_seeder()(seed)
    numpy_seed = numpy_seeder()
    if numpy_seed is not None:
        numpy_seed(int.from_bytes(os.urandom(4), "little"))  # its legacy seed takes 32 bits
