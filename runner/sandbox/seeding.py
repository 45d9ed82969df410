"""Fresh random state in every spare (none inherited from the zygote), and how each generator
is seeded, decided once in the zygote."""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable
from typing import Any

# The torch releases whose ``manual_seed`` was measured and read: each queues a seed for every
# absent device (``torch.cuda``, ``torch.xpu``, ``torch.mtia``: their ``_lazy_call``) with the
# caller's stack. On another release :func:`skip_absent_accelerators` changes nothing.
ACCELERATOR_SEEDING_CHECKED = ("2.13.",)
ACCELERATORS = ("cuda", "xpu", "mtia")
DEVICE_SEEDING = ("manual_seed", "manual_seed_all", "seed", "seed_all")


def _seed_nothing(*_args: Any, **_kwargs: Any) -> None:
    """Seeding a device this machine does not have: nothing to do."""


def skip_absent_accelerators() -> bool:
    """Let ``torch.manual_seed`` seed only the devices that exist; called once, in the zygote.

    On a machine without CUDA, XPU or MTIA, torch still queues a seed for each of them and
    records the caller's stack with ``traceback.format_stack()`` (for an error message at a
    device initialisation that can never happen): ~0.06 ms a call here, and problems call it
    several times per case. Their own documentation says these functions are "silently ignored"
    without the device, which is what they become here. Paired in one run it saves ~8.5 ms of
    the pool's CPU a verdict of the seed problem (docs/benchmarks.md, "Private internals").

    Only on a torch release in :data:`ACCELERATOR_SEEDING_CHECKED` (True); on another it
    changes nothing (False) and ``torch.manual_seed`` seeds as torch does, only slower.
    """
    import torch

    if not torch.__version__.startswith(ACCELERATOR_SEEDING_CHECKED):
        return False
    for name in ACCELERATORS:
        device = getattr(torch, name, None)
        if device is None or device.is_available():
            continue
        for function in DEVICE_SEEDING:
            if hasattr(device, function):
                setattr(device, function, _seed_nothing)
    return True


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
