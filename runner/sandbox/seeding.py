"""Fresh random state in every spare (none inherited from the zygote), and how each generator
is seeded, decided once in the zygote."""

from __future__ import annotations

import ctypes
import functools
import os
import random
import sys
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


MT_WORDS = 624  # the Mersenne Twister's state: 624 32-bit words, then the position in them


@functools.cache
def numpy_reseeder() -> Callable[[], object] | None:
    """How :func:`reseed` gives numpy's global generator (``numpy.random.rand`` and the other
    functions of ``numpy.random``) fresh state; decided once in the zygote (:func:`warm_up`).
    None without numpy.

    ``numpy.random.seed`` costs a fresh spare ~0.15 ms of CPU and ~70 copy-on-write faults
    (its Python and Cython layers and the objects they touch; forks of a warm zygote), which is
    most of what reseeding costs. The generator is a Mersenne Twister whose state numpy exposes
    through its ctypes interface (``state_address``): a child writes 2,496 bytes of fresh
    entropy into its key and sets the position to the end, so its first draw makes the next
    block from that key, as numpy's own seeding from entropy does: a spare's whole reseed took
    ~0.15 ms instead of ~0.22 (docs/benchmarks.md, the seventeenth pass). The layout is
    checked here against numpy's own view of the state (and any cached Gaussian dropped);
    where it does not match, children call ``numpy.random.seed`` as before.
    """
    try:
        import numpy.random
    except ImportError:
        return None
    legacy = numpy.random.mtrand._rand
    generator = legacy._bit_generator
    try:
        legacy_state = legacy.get_state(legacy=True)
        if isinstance(legacy_state, tuple):
            legacy.set_state((*legacy_state[:3], 0, 0.0))  # no cached Gaussian for the children
        address = generator.ctypes.state_address
        key = (ctypes.c_uint32 * MT_WORDS).from_address(address)
        position = ctypes.c_int.from_address(address + ctypes.sizeof(key))
        state = generator.state["state"]
        matches = (
            type(generator).__name__ == "MT19937"
            and list(key) == [int(word) for word in state["key"]]
            and position.value == int(state["pos"])
        )
    except Exception:  # another generator or numpy without this interface
        matches = False
    if not matches:
        return lambda: numpy.random.seed(int.from_bytes(os.urandom(4), "little"))
    # The key and the position as one run of bytes, written with a plain copy (no foreign call).
    state_size = ctypes.sizeof(key) + ctypes.sizeof(position)
    state_bytes = memoryview((ctypes.c_ubyte * state_size).from_address(address)).cast("B")
    at_end = MT_WORDS.to_bytes(ctypes.sizeof(position), sys.byteorder)
    entropy = ctypes.sizeof(key)

    def fresh(generator: object = generator) -> None:  # the generator kept alive with its state
        state_bytes[:] = os.urandom(entropy) + at_end

    return fresh


def reseed() -> None:
    """Fresh random state for every child: none is inherited from the zygote."""
    seed = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
    random.seed(seed)
    torch_seeder()(seed)
    numpy_fresh = numpy_reseeder()
    if numpy_fresh is not None:
        numpy_fresh()
