"""The machine's CPU counters (``bench.cpustat``), read as the benchmarks read them."""

from __future__ import annotations

import os
import time

import pytest

from bench import cpustat

# A 2-CPU machine's /proc/stat (ticks of 1/100 s): user nice system idle iowait irq softirq steal ...
SAMPLE = """cpu  1000 50 400 9000 100 10 40 7 0 0
cpu0 500 25 200 4500 50 5 20 3 0 0
cpu1 500 25 200 4500 50 5 20 4 0 0
intr 12345
ctxt 67890
"""


def test_the_machine_line_is_split_into_busy_idle_and_stolen_time() -> None:
    times = cpustat.parse(SAMPLE, 100)
    assert times.busy_s == pytest.approx((1000 + 50 + 400 + 10 + 40) / 100)
    assert times.idle_s == pytest.approx((9000 + 100) / 100)
    assert times.steal_s == pytest.approx(0.07)


def test_an_old_kernel_without_the_later_columns_counts_them_as_zero() -> None:
    times = cpustat.parse("cpu  100 0 50 800\n", 100)
    assert (times.busy_s, times.idle_s, times.steal_s) == (1.5, 8.0, 0.0)


def test_text_without_the_machine_line_is_refused() -> None:
    with pytest.raises(ValueError, match="no machine-wide cpu line"):
        cpustat.parse("cpu0 1 2 3 4\nintr 5\n", 100)


def test_a_difference_is_the_time_spent_in_between() -> None:
    later = cpustat.parse(SAMPLE.replace("cpu  1000", "cpu  1300").replace(" 9000 ", " 9100 "), 100)
    spent = later - cpustat.parse(SAMPLE, 100)
    assert (spent.busy_s, spent.idle_s, spent.steal_s) == pytest.approx((3.0, 1.0, 0.0))


def test_the_ceiling_is_what_the_cpus_can_give_at_that_cost() -> None:
    assert cpustat.ceiling_per_s(20.0, 2) == pytest.approx(100.0)
    assert cpustat.ceiling_per_s(25.0, 2) == pytest.approx(80.0)
    assert cpustat.ceiling_per_s(0.0, 2) == float("inf")


def test_the_busy_share_is_the_cpu_spent_over_the_cpu_there_was() -> None:
    assert cpustat.busy_share(96.6, 19.9, 2) == pytest.approx(0.96117)
    assert cpustat.busy_share(100.0, 20.0, 2) == pytest.approx(1.0)
    assert cpustat.busy_share(50.0, 20.0, 0) == 0.0


@pytest.mark.skipif(not os.path.exists(cpustat.STAT), reason="needs Linux's /proc/stat")
def test_this_machine_counts_the_work_of_a_busy_loop() -> None:
    before = cpustat.read()
    spin_until = time.thread_time() + 0.2
    while time.thread_time() < spin_until:
        pass
    spent = cpustat.read() - before
    assert spent.busy_s >= 0.15  # the loop's own 0.2 s of CPU, less a tick of rounding
