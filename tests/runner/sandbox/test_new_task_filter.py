"""The seccomp filter's job part, loaded as the harness loads it, in a forked child outside
the sandbox: every route to a new thread or process that the standard library and torch offer
ends in a refusal (the sandbox's own tests: tests/runner/redteam/test_single_task.py), while
torch's own work, its backward pass and its inline "parallel" routes, still run."""

from __future__ import annotations

import json
import os

import pytest

from runner.sandbox import syscalls

ROUTES = {
    "thread": "threading.Thread(target=int).start()",
    "thread pool": "concurrent.futures.ThreadPoolExecutor(2).submit(int).result()",
    "process pool": "concurrent.futures.ProcessPoolExecutor(2).submit(int).result()",
    "multiprocessing": "multiprocessing.get_context('fork').Process(target=int).start()",
    "multiprocessing spawn": "multiprocessing.get_context('spawn').Process(target=int).start()",
    "fork": "os.fork() or os._exit(0)",
    "posix_spawn": "os.posix_spawn('/bin/true', ['true'], {})",
    "subprocess": "subprocess.run(['true'])",
    "torch.multiprocessing": "torch.multiprocessing.start_processes(print, nprocs=1, start_method='fork')",
    "DataLoader workers": "list(torch.utils.data.DataLoader(list(range(4)), num_workers=2))",
}
STILL_RUN = {
    "jit.fork": "torch.jit.wait(torch.jit.fork(torch.add, torch.ones(2), 1))",
    "backward": "(lambda x: (x @ x).sum().backward())(torch.randn(64, 64, requires_grad=True))",
    "matmul": "torch.randn(512, 512) @ torch.randn(512, 512)",
}


def _under_the_filter(statements: dict[str, str]) -> dict[str, str]:
    """Each statement's outcome ("ok" or the exception's type) in a child under the filter."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            import concurrent.futures  # noqa: F401
            import multiprocessing  # noqa: F401
            import subprocess  # noqa: F401
            import threading  # noqa: F401

            import torch
            import torch.multiprocessing
            import torch.utils.data

            torch.set_num_threads(1)
            torch.set_num_interop_threads(1)
            syscalls.compile_seccomp_filter("zygote").load()
            syscalls.compile_seccomp_filter("job").load()
            outcomes = {}
            for name, statement in statements.items():
                try:
                    eval(statement)
                    outcomes[name] = "ok"
                except BaseException as exc:
                    outcomes[name] = type(exc).__name__
            os.write(write, json.dumps(outcomes).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return dict(json.loads(data))


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    return _under_the_filter(ROUTES | STILL_RUN)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_the_route_is_refused(outcomes: dict[str, str], route: str) -> None:
    assert outcomes[route] in ("RuntimeError", "PermissionError"), outcomes[route]


@pytest.mark.parametrize("work", sorted(STILL_RUN))
def test_torch_s_own_work_still_runs(outcomes: dict[str, str], work: str) -> None:
    assert outcomes[work] == "ok"


def test_without_the_filter_the_routes_work() -> None:
    """So the refusals above can fail: the same child, no filter, starts a thread and a process."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        import threading

        t = threading.Thread(target=int)
        t.start()
        t.join()
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        os.write(write, b"ok")
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        assert fh.read() == b"ok"
    os.waitpid(pid, 0)
