"""Observation covers the whole job: judged code gets no new thread or process (the seccomp
filter's job part, loaded before the learner's import), so nothing it computes escapes the
thread-local interception modes. Every route to another thread or process, run in the real
sandbox: refused, with a message that says why; allowed where the problem says so."""

from __future__ import annotations

import textwrap

import pytest

from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn

REFUSED = "starting threads or processes"


def code(src: str) -> str:
    return textwrap.dedent(src).lstrip()


# Each route to another thread or process, as a learner would write it; the work is "return 0".
# (torch.multiprocessing's start_processes meets the guard first, on its temporary directory;
# tests/runner/sandbox/test_new_task_filter.py runs it under the filter alone.)
ROUTES = {
    "threading.Thread": """
        import threading
        def probe():
            out = []
            t = threading.Thread(target=lambda: out.append(0))
            t.start(); t.join()
            return out[0]
    """,
    "threading.Timer": """
        import threading
        def probe():
            out = []
            t = threading.Timer(0, lambda: out.append(0))
            t.start(); t.join()
            return out[0]
    """,
    "_thread.start_new_thread": """
        import _thread
        def probe():
            _thread.start_new_thread(print, ("hi",))
            return 0
    """,
    "ThreadPoolExecutor": """
        from concurrent.futures import ThreadPoolExecutor
        def probe():
            with ThreadPoolExecutor(2) as pool:
                return pool.submit(int).result()
    """,
    "ProcessPoolExecutor": """
        from concurrent.futures import ProcessPoolExecutor
        def probe():
            with ProcessPoolExecutor(2) as pool:
                return pool.submit(int).result()
    """,
    "multiprocessing.Process": """
        import multiprocessing
        def probe():
            p = multiprocessing.get_context("fork").Process(target=int)
            p.start(); p.join()
            return 0
    """,
    "multiprocessing.pool.ThreadPool": """
        from multiprocessing.pool import ThreadPool
        def probe():
            with ThreadPool(2) as pool:
                return pool.apply(int)
    """,
    "os.fork": """
        import os
        def probe():
            if os.fork() == 0:
                os._exit(0)
            return 0
    """,
    "os.posix_spawn": """
        import os
        def probe():
            os.posix_spawn("/bin/true", ["true"], {})
            return 0
    """,
    "subprocess.run": """
        import subprocess
        def probe():
            return subprocess.run(["true"]).returncode
    """,
    "DataLoader workers": """
        from torch.utils.data import DataLoader
        def probe():
            return sum(int(b.sum()) for b in DataLoader(list(range(4)), num_workers=2)) - 6
    """,
    "a thread started at import": """
        import threading
        threading.Thread(target=print).start()
        def probe():
            return 0
    """,
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_route_to_another_thread_or_process_is_refused(judge_probe: JudgeFn, route: str) -> None:
    result = judge_probe(code(ROUTES[route]), time_s=10)
    assert result.verdict != Verdict.ACCEPTED, route
    messages = [result.message, *(c.message for c in result.cases)]
    # multiprocessing's and concurrent.futures.process's modules that torch does not import are
    # out of the job's reach where the interpreter's own folder is not readable by the job's uid
    # (a pyenv under /root); elsewhere they end in clone/fork, refused like every route
    # (tests/runner/sandbox/test_new_task_filter.py runs them all under the filter itself).
    unreachable = "No module named 'multiprocessing." in messages[0] or (
        "No module named 'concurrent.futures.process'" in messages[0]
    )
    assert unreachable or any(REFUSED in m for m in messages), messages


def test_a_refused_thread_that_is_caught_changes_nothing(judge_probe: JudgeFn) -> None:
    # Catching the refusal and doing the work itself puts the work on the judged thread.
    src = code("""
        import threading
        def probe():
            try:
                threading.Thread(target=print).start()
            except RuntimeError as exc:
                return str(exc)
            return "started"
    """)
    result = judge_probe(src)
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "can't start new thread" in str(result.cases[0].actual)


@pytest.mark.parametrize(
    "work",
    [
        "torch.jit.wait(torch.jit.fork(torch.add, torch.ones(3), 1)).sum().item() - 6",
        "torch.futures.Future().then(lambda f: 0).done() * 0",
        "(lambda x: (x @ x).sum().backward() or 0)(torch.randn(300, 300, requires_grad=True))",
        "int((torch.randn(512, 512) @ torch.randn(512, 512)).isnan().any())",
        "torch.get_num_threads() + torch.get_num_interop_threads() - 2",
    ],
)
def test_torch_itself_needs_no_new_thread(judge_probe: JudgeFn, work: str) -> None:
    """torch's own pools are one thread (the caller's): its parallel routes run inline."""
    src = f"import torch\ndef probe():\n    return {work}\n"
    result = judge_probe(src, time_s=10)
    assert result.verdict == Verdict.ACCEPTED, (result.message, [c.message for c in result.cases])


def test_a_problem_that_allows_threads_gets_them(judge_probe: JudgeFn) -> None:
    result = judge_probe(code(ROUTES["threading.Thread"]), threads=True)
    assert result.verdict == Verdict.ACCEPTED, result.message
    result = judge_probe(code(ROUTES["os.fork"]), threads=True)
    assert result.verdict == Verdict.ACCEPTED, result.message
