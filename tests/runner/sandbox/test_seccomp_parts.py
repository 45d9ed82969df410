"""The seccomp filter's parts are all in force in a job (``runner.sandbox.syscalls.SandboxFilters``):
the zygote's, inherited by every spare, the spare's, loaded after its mounts, and the job's, unless
the problem allows threads. The split is a speed-up (docs/benchmarks.md, "Private internals"):
a part silently left unloaded fails here, against the real sandbox."""

from __future__ import annotations

import ast

import pytest

from tests.runner.conftest import JudgeFn

PROBE = """
import errno, socket

def probe():
    status = open("/proc/self/status").read().splitlines()
    filters = [line.split()[1] for line in status if line.startswith("Seccomp_filters:")]
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()
        netlink = "created"
    except OSError as exc:
        netlink = errno.errorcode.get(exc.errno, str(exc.errno))
    return [filters, netlink]
"""


@pytest.mark.parametrize(("threads", "parts"), [(False, "3"), (True, "2")])
def test_every_part_of_the_filter_is_in_force_in_a_job(
    judge_probe: JudgeFn, threads: bool, parts: str
) -> None:
    result = judge_probe(PROBE, threads=threads)
    filters, netlink = ast.literal_eval(str(result.cases[0].actual))
    # The kernel counts the filters in force (Linux 5.9 on): zygote's + spare's (+ the job's).
    assert filters == [parts], filters
    assert netlink == "EACCES"  # a socket family the zygote's part refuses
