"""The job's ``sys.stdout`` and ``sys.stderr``: made once by the zygote (``lockdown.job_stdio``),
put in place by each spare once the job's pipes are its file descriptors 1 and 2. Run in the
real sandbox: what a job writes reaches its own pipes, as the text it wrote, and nothing else
does (no other job's output, nothing buffered before the job)."""

from __future__ import annotations

import io

from runner.engine import Runner, job_payload
from runner.format.problem import ProblemFiles
from runner.sandbox import compiled
from runner.sandbox.lockdown import job_stdio

# At import (outside the cases, whose stdout the harness captures) and in each case, the job
# writes to the streams it was given; the case returns what they are.
WRITER = (
    "import sys, warnings\n"
    "sys.stderr.write('imported \\u00e9 \\udcff\\n')\n"
    "def probe():\n"
    "    warnings.warn('careful')\n"
    "    return [sys.stderr.fileno(), sys.stderr.encoding, sys.stderr.errors, sys.stderr.line_buffering]\n"
)


def _run(runner: Runner, problem: ProblemFiles, code: str) -> tuple[list[object], str]:
    payload = job_payload(
        code, problem.tests, problem.entry_point, None, compiled.compiled_tests(problem.tests)
    )
    raw = runner.run_payload(payload, problem.limits)
    assert raw.first("done") is not None, raw.stderr
    return [r.get("value") for r in raw.records if r.get("type") == "case"], raw.stderr


def test_what_a_job_writes_to_stderr_reaches_its_own_pipe_as_text(runner: Runner, probe) -> None:  # type: ignore[no-untyped-def]
    problem, _ = probe
    values, stderr = _run(runner, problem, WRITER)
    assert values == [[2, "utf-8", "backslashreplace", True]] * 2
    assert stderr.count("imported é \\udcff\n") == 1  # the unencodable character escaped, not lost
    assert stderr.count("careful") == 2  # each case's warning, through the same stream
    second_values, second = _run(runner, problem, WRITER)
    assert second_values == values
    assert second.count("imported") == 1  # the next job's pipe holds its own output only


def test_the_streams_are_line_buffered_utf8_text_over_1_and_2_which_they_never_close() -> None:
    out, err = job_stdio()
    try:
        for stream, fd in ((out, 1), (err, 2)):
            assert isinstance(stream, io.TextIOWrapper)
            assert (stream.fileno(), stream.encoding, stream.errors) == (fd, "utf-8", "backslashreplace")
            raw = stream.buffer.raw  # type: ignore[attr-defined]  # a BufferedWriter's FileIO
            assert stream.line_buffering and not raw.closefd
    finally:
        out.detach()  # never close this process's own 1 and 2
        err.detach()
