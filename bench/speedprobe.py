"""How fast this machine is right now: a fixed piece of work, timed, printed beside benchmark figures.

The benchmark machine's speed changes by 2x with nothing else running (a shared virtual machine:
docs/benchmarks.md): this probe, repeated, reads ~2.1 ms for a few seconds, then ~4.0 ms, then
~2.1 ms again, on either CPU, with or without a warm pool. A figure means little without the
speed it was measured at, and a long run spans both. The probe is a small, fixed mix of what a
verdict costs: Python bytecode, small allocations and a few small torch operations, in this
process, single-threaded. At twice the probe, expect about twice the time.
"""

from __future__ import annotations

import gc
import statistics
import time


def _work() -> float:
    import torch

    total = 0.0
    for i in range(20_000):  # bytecode, small ints and floats, a dict
        total += {"i": i}["i"] * 0.5
    x = torch.ones(8, 8)
    for _ in range(200):  # torch's per-call overhead, which dominates small problems
        x = torch.tanh(x @ x * 0.01)
    return total + float(x.sum())


def probe_ms(rounds: int = 7) -> float:
    """The median wall time of the fixed work, in ms (one warm-up round first).

    The garbage collector is off meanwhile: a collection's cost depends on what else the process
    holds (a benchmark's whole heap), not on the machine."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        _work()
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            _work()
            times.append((time.perf_counter() - started) * 1000)
    finally:
        if was_enabled:
            gc.enable()
    return statistics.median(times)


def describe(start: float, end: float) -> str:
    """One line for a benchmark's output: the probe taken at the start, before the benchmark
    started anything, and at the end, after its last measurement (different readings: the
    machine changed speed during the run)."""
    return (
        f"machine speed probe (bench/speedprobe.py, lower is faster): {start:.2f} ms at the start, "
        f"{end:.2f} ms at the end"
    )
