"""The job's channels: tests compiled on the host, and the result channel read in batches.

The host does not wake for every record (``runner.sandbox.host.collect``): these check that nothing
a job wrote is lost that way — not when a limit stops it, not when its process is killed, not
when the learner keeps the channel open — and that the compiled tests are the ones that run.
"""

from __future__ import annotations

import json
import marshal
import os
import threading
import time
import traceback
from typing import Any

import pytest

from runner import jobs
from runner.engine import Runner, job_payload
from runner.jobs import Limits
from runner.sandbox import compiled
from runner.sandbox.channel import RawRun, collect
from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn

# The reference returns 0; the first call returns it, the second never finishes or ends the process.
FIRST_THEN = (
    "import os, signal, time\ncalls = []\n"
    "def probe():\n    calls.append(1)\n    if len(calls) > 1:\n{}\n    return 0\n"
)


def test_a_time_limit_keeps_the_cases_that_finished(judge_probe: JudgeFn) -> None:
    result = judge_probe(FIRST_THEN.format("        while True: pass"), mode="submit", time_s=1)
    assert result.verdict == Verdict.TIME_LIMIT_EXCEEDED
    assert [c.status for c in result.cases] == [jobs.CASE_PASSED, jobs.CASE_NOT_RUN]


def test_a_killed_job_keeps_the_cases_that_finished(judge_probe: JudgeFn) -> None:
    result = judge_probe(FIRST_THEN.format("        os.kill(os.getpid(), signal.SIGKILL)"), mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert [c.status for c in result.cases] == [jobs.CASE_PASSED, jobs.CASE_NOT_RUN]


def test_a_channel_held_open_by_the_learner_still_ends_the_run(judge_probe: JudgeFn) -> None:
    # The harness closes the channel after its last record; a copy kept by the learner's code
    # keeps it open, so the host finds the end record by reading on its own.
    src = "import os\nkept = os.dup(3)\ndef probe():\n    return 0\n"
    result = judge_probe(src, mode="submit")
    assert result.verdict == Verdict.ACCEPTED, result.message


def test_a_large_record_is_judged(judge_probe: JudgeFn) -> None:
    src = "def probe():\n    return [0.5] * 100_000\n"  # a record of about 500 KB
    result = judge_probe(src, mode="run")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "expected a number, got a list" in result.cases[0].message


def test_records_written_before_a_limit_are_read_after_it() -> None:
    """The reads stop at a limit; what is in the pipe by then is still read once more."""
    pipes = [os.pipe() for _ in range(3)]
    records = [
        {"type": "start"},
        {"type": "cases", "cases": []},
        {"type": "case", "name": "a", "status": "ok"},
    ]
    os.write(pipes[2][1], b"".join((json.dumps(r) + "\n").encode() for r in records))
    raw = RawRun()
    try:
        started = time.perf_counter() - 2  # the time limit (1 s) is already over
        ends = (pipes[0][0], pipes[1][0], pipes[2][0])
        done = collect(raw, *ends, Limits(time_s=1), started, threading.Event())
    finally:
        for r, w in pipes:
            os.close(r)
            os.close(w)
    assert raw.timed_out and not done
    assert [r["type"] for r in raw.records] == ["start", "cases", "case"]


def test_compiled_tests_keep_the_path_and_the_code() -> None:
    source = "def f():\n    raise ValueError('x')\n"
    sent = compiled.compiled_tests(source)
    code = compiled.tests_code({"tests_code": sent, "tests_source": "broken("}, compiled.TESTS_PATH)
    assert code is sent and code.co_filename == compiled.TESTS_PATH
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    with pytest.raises(ValueError) as info:
        namespace["f"]()
    assert traceback.extract_tb(info.value.__traceback__)[-1].filename == compiled.TESTS_PATH


@pytest.mark.parametrize(
    "sent",
    [compile("VALUE = 'from the host'\n", "/elsewhere/tests.py", "exec"), "not code", None],
    ids=["other-path", "not-a-code-object", "none-sent"],
)
def test_tests_are_compiled_in_the_sandbox_when_the_host_copy_does_not_fit(sent: object) -> None:
    payload: dict[str, object] = {"tests_source": "VALUE = 'from the source'\n"}
    if sent is not None:
        payload["tests_code"] = sent
    namespace: dict[str, object] = {}
    exec(compiled.tests_code(payload, compiled.TESTS_PATH), namespace)
    assert namespace["VALUE"] == "from the source"


def test_a_payload_comes_through_its_encoding_whole() -> None:
    payload = {
        "code": "x = '\udcff lone surrogate, kept'\n",  # as the learner's bytes decoded (surrogateescape)
        "tests_source": "VALUE = 1\n",
        "tests_code": compiled.compiled_tests("VALUE = 1\n"),
        "entry_point": "solve",
        "cases": ["a", "b"],
        "guard": False,
    }
    decoded = compiled.decode_payload(compiled.encode_payload(payload))
    assert decoded == payload
    assert compiled.tests_code(decoded, compiled.TESTS_PATH).co_filename == compiled.TESTS_PATH


@pytest.mark.parametrize(
    "data",
    [
        b"{}",  # JSON, as a host of an earlier version sent it
        b"\x00\x00\x0d\x0a" + compiled.encode_payload({})[len(compiled.MAGIC) :],  # another interpreter
        compiled.MAGIC + b"\xff\xfe",  # not marshal data
        compiled.encode_payload({})[: len(compiled.MAGIC) + 1][:-1] + b"[",  # truncated
        compiled.MAGIC + marshal.dumps([1, 2]),  # not a mapping
    ],
    ids=["json", "other-magic", "garbage", "truncated", "not-a-mapping"],
)
def test_a_payload_this_interpreter_did_not_encode_is_refused(data: bytes) -> None:
    with pytest.raises(compiled.PayloadError):
        compiled.decode_payload(data)


def test_the_sandbox_runs_the_tests_the_host_compiled(runner: Runner, probe) -> None:  # type: ignore[no-untyped-def]
    # A payload whose compiled tests differ from its source on purpose: the compiled ones run.
    problem, _ = probe
    other = problem.tests.replace("return solution.probe()", "return solution.probe() + 41")
    assert other != problem.tests
    payload = job_payload(
        "def probe():\n    return 1\n",
        problem.tests,
        problem.entry_point,
        None,
        compiled.compiled_tests(other),
    )
    raw = runner.run_payload(payload, problem.limits)
    values = [r.get("value") for r in raw.records if r.get("type") == "case"]
    assert values == [42, 42]


def test_the_job_files_are_the_sources_and_read_only(judge_probe: JudgeFn) -> None:
    # The spare writes solution.py and tests.py (runner.sandbox.lockdown.write_read_only); the learner's code
    # can read its own file (inspect.getsource works) but change neither.
    src = (
        "import inspect, os, stat\n"
        "def probe():\n"
        "    mine = open('/tmp/solution.py', encoding='utf-8').read()\n"
        "    modes = [stat.S_IMODE(os.stat(p).st_mode) for p in ('/tmp/solution.py', '/tmp/tests.py')]\n"
        "    try:\n"
        "        open('/tmp/tests.py', 'a')\n"
        "        writable = True\n"
        "    except OSError:\n"
        "        writable = False\n"
        "    same = mine.endswith('# é, the end\\n') and 'def probe' in inspect.getsource(probe)\n"
        "    return 0 if same and modes == [0o444, 0o444] and not writable else [same, modes, writable]\n"
        "# é, the end\n"
    )
    result = judge_probe(src, mode="run")
    assert result.verdict == Verdict.ACCEPTED, (result.message, result.cases[0].actual)
