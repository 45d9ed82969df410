"""The in-sandbox half of judging: import the learner's module and run the cases.

This runs inside the sandboxed process, next to untrusted code, so it is trusted for
nothing: it reports *values* (never verdicts) on the result channel, and the host
compares them with expected values that never enter the sandbox. Whatever the learner
does to this module — patch it, exit early, print fake records — can only make their
own cases fail.

Records written to the result channel (one JSON object per line):
``{"type": "start"}``, ``{"type": "compile_error", ...}``, ``{"type": "import_error", ...}``,
``{"type": "cases", "cases": [...]}``, ``{"type": "case", ...}``, ``{"type": "done"}``.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import io
import json
import os
import reprlib
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any

from runner import testing
from runner.records import values
from runner.sandbox import compiled, sealed_records
from runner.testing import frozen_modules, guard, sealed

SOLUTION_FILE = "solution.py"
TESTS_FILE = "tests.py"
CASE_STDOUT_LIMIT = 8 * 1024
MESSAGE_CHARS = 2000
TRACEBACK_CHARS = 4000
RECORD_LIMIT = 1024 * 1024  # one case's record, value included; the host refuses a channel over 16 MB


# The record writer and value encoder of guarded jobs, sealed once (in the zygote, which imports
# this module): a learner's patch of json, os, values or torch.Tensor cannot reach them.
SEALED = sealed_records.make(RECORD_LIMIT)


class ResultChannel:
    """Line-oriented JSON writer over a raw file descriptor (no buffering to lose)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n").encode()
        if len(data) > RECORD_LIMIT and record.get("type") == "case":
            kind = "value" if record.get("status") == "ok" else "output"
            record = {k: record[k] for k in ("type", "name", "time_ms") if k in record} | {
                "status": "error",
                "exception": "ValueTooLarge",
                "message": f"The case's {kind} is too large to judge: {len(data) // 1024} KB encoded, "
                f"at most {RECORD_LIMIT // 1024} KB.",
            }
            data = (json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]


class BoundedText(io.TextIOBase):
    """A stdout replacement that keeps at most ``limit`` characters of one case's output."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError("write() argument must be str")
        room = self.limit - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(len(s), room)
        if len(s) > max(room, 0):
            self.truncated = True
        return len(s)

    def getvalue(self) -> str:
        return "".join(self.parts) + ("\n… (output truncated)" if self.truncated else "")


def _frames(tb: types.TracebackType | None) -> list[tuple[types.FrameType, int]]:
    """The traceback's frames, without the judge's sealed ones (their code is not to be read)."""
    return [(f, n) for f, n in traceback.walk_tb(tb) if f.f_globals is not sealed.SEALED_GLOBALS]


def learner_line(tb: types.TracebackType | None, filename: str) -> int | None:
    """The last line of the learner's file in a traceback, if any."""
    line = None
    for frame, lineno in _frames(tb):
        if frame.f_code.co_filename == filename:
            line = lineno
    return line


def _type_name(obj: object) -> str:
    """``type(obj).__name__`` as an exact ``str``: a class's name can be set to a ``str`` subclass,
    whose ``__format__`` and slicing are the learner's code (the harness formatted one and died)."""
    name = type.__dict__["__name__"].__get__(type(obj))
    return str.__str__(name) if isinstance(name, str) else "Exception"


def _exception_text(exc: BaseException) -> str:
    """``str(exc)`` as an exact ``str``, even when the learner's ``__str__`` is huge, raises or returns a
    ``str`` subclass whose methods raise."""
    try:
        if isinstance(exc, SystemExit):
            return f"exit({reprlib.repr(exc.code)}) was called"
        text = str(exc)
        # A str subclass is a str to `str()`, but its slicing and methods are the learner's code:
        # `str.__str__` copies it into an exact str without running any of them.
        return str.__str__(text) if isinstance(text, str) else "<__str__ did not return a string>"
    except BaseException as inner:
        return f"<the exception's message could not be shown: {_type_name(inner)} in __str__>"


def learner_traceback(exc: BaseException, filename: str, source: str) -> str:
    """The traceback of ``exc`` through the learner's own frames only, like Python prints it."""
    lines = source.splitlines()
    parts = []
    for frame, lineno in _frames(exc.__traceback__):
        if frame.f_code.co_filename != filename:
            continue
        text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        parts.append(f'  File "solution.py", line {lineno}, in {frame.f_code.co_name}\n    {text}'[:300])
    if not parts:
        return ""
    head = "Traceback (your code, most recent call last):\n"
    tail = f"\n{_type_name(exc)}: {_exception_text(exc)[:500]}"
    return (head + "\n".join(parts[-20:]) + tail)[:TRACEBACK_CHARS]


NEW_TASK_REFUSED = (
    "Your code runs on one thread here: starting threads or processes (threading, "
    "concurrent.futures, multiprocessing, os.fork, subprocess, DataLoader workers, …) is refused. "
    "Do the work in the calling thread."
)


def new_task_refused(exc: BaseException) -> bool:
    """Whether ``exc`` is what refusing a new thread or process raises (the seccomp filter's job
    part answers ``clone``/``fork``/``vfork`` with EPERM; Python's threads say they cannot start)."""
    if isinstance(exc, RuntimeError) and "can't start new thread" in _exception_text(exc):
        return True
    if not isinstance(exc, OSError):
        return False
    # Read through OSError's own slot: a subclass's `errno` property, or a value whose `__eq__` is
    # the learner's, would run its code here, outside every case (the harness died of one).
    code = OSError.__dict__["errno"].__get__(exc)
    return type(code) is int and code == errno.EPERM


def describe_exception(
    exc: BaseException, filename: str, source: str = "", single_task: bool = False
) -> dict[str, Any]:
    """The learner's view of ``exc``; ``single_task``: threads and processes were refused, so an
    exception that refusal raises says why (EPERM has other causes: the message says "if")."""
    line = learner_line(exc.__traceback__, filename)
    text = _exception_text(exc)[:MESSAGE_CHARS]
    name = _type_name(exc)
    message = f"{name}: {text}" if text else name
    if line is not None:
        message += f" (solution.py, line {line})"
    if single_task and new_task_refused(exc):
        certain = isinstance(exc, RuntimeError)
        maybe = "" if certain else "If this came from starting a thread or a process: "
        message = f"{message[: MESSAGE_CHARS - 300]}. {maybe}{NEW_TASK_REFUSED}"
    described = {"exception": name, "message": message[:2000], "line": line}
    if source:
        described["traceback"] = learner_traceback(exc, filename, source)
    return described


def _writers(
    channel: ResultChannel, payload: dict[str, Any]
) -> tuple[Callable[[dict[str, Any]], None], Callable[[Any], Any]]:
    """How this job writes records and encodes values, bound before the learner's import: the
    sealed ones for a guarded job on a real channel, the plain ones in-process."""
    if SEALED is not None and type(channel) is ResultChannel and payload.get("guard", True):
        encode, send = SEALED
        return functools.partial(send, channel.fd), encode
    return channel.send, values.encode


def load_module(name: str, code: types.CodeType, filename: str, judges: bool = False) -> types.ModuleType:
    """``judges``: the module is the problem's ``tests.py``, whose code may rebind what it wraps in
    the modules the judge made read-only (``runner.testing.frozen_modules``), and which becomes
    read-only itself."""
    module = types.ModuleType(name)
    module.__file__ = filename
    if judges:
        frozen_modules.trust_tests(module)
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module


def run(
    payload: dict[str, Any],
    channel: ResultChannel,
    workdir: str,
    pending: guard.PendingGuard | None = None,
    single_task: Callable[[], None] | None = None,
    cleared: Callable[[], bool] | None = None,
) -> None:
    """Run one job. ``payload`` holds ``code``, ``tests_source`` (and, optionally, ``tests_code``:
    the code object :func:`runner.sandbox.compiled.compiled_tests` made), ``entry_point`` and ``cases``,
    and ``"guard": false`` where the host wants no guard (the sandbox's own tests of the layer
    below it), and ``"watch_ops_every_case": false`` where the problem's tests check no operation
    (the judge's function mode then goes on only from a check's start to its case's end:
    ``runner.testing.ops``). ``pending`` is the job's guard (its key came from the host before the job;
    ``runner.sandbox.zygote``), put in force once the problem's tests are loaded; without it the job
    runs unguarded (tests in-process).
    ``single_task``: called once the harness is ready (the problem's tests loaded), before the
    guard is in force and the learner's module is imported,
    to refuse new threads and processes for the rest of the job (the seccomp filter's job part;
    ``None`` where the problem allows them, or in-process).
    ``cleared``: waits for the host's word that the learner's code may run (its source policy,
    checked while this job got ready: ``runner.sandbox.control``'s clearance pipe), just before the
    learner's module is imported; False: the job ends there, nothing of the code having run."""
    send, encode = _writers(channel, payload)
    send({"type": "start"})
    solution_path = os.path.join(workdir, SOLUTION_FILE)
    tests_path = os.path.join(workdir, TESTS_FILE)
    code: str = payload["code"]
    try:
        solution_code = compile(code, solution_path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        column = getattr(exc, "offset", None)
        msg = getattr(exc, "msg", None) or str(exc)
        where = f" (solution.py, line {line})" if line else ""
        send(
            {
                "type": "compile_error",
                "message": f"{type(exc).__name__}: {msg}{where}",
                "line": line,
                "column": column,
            }
        )
        return

    testing.reset_registry()
    try:
        tests_module = load_module(
            "torchdrill_tests", compiled.tests_code(payload, tests_path), tests_path, judges=True
        )
    except BaseException as exc:  # the instructor's tests are broken: not the learner's fault
        send({"type": "tests_error", "message": "".join(traceback.format_exception_only(exc))[-2000:]})
        return
    del tests_module
    if single_task is not None:
        single_task()  # before the guard is in force: its audit hook refuses ctypes from then on
    judge = None
    if pending is not None and payload.get("guard", True):
        judge = pending.install()
        if judge is not None:  # before the learner's import, once (runner.testing.ops)
            judge.ops.watch_every_case(payload.get("watch_ops_every_case", True) is not False)
    elif pending is not None:
        pending.forget()
    del pending
    specs = {spec.name: spec for spec in testing.collected_cases()}
    funcs = {spec.name: spec.func for spec in specs.values()}  # a spec is reachable, this dict is not
    send(
        {
            "type": "cases",
            "cases": [
                {
                    "name": s.name,
                    "public": s.public,
                    "rtol": s.rtol,
                    "atol": s.atol,
                    "rule": s.rule,
                    "rule_by_value": s.rule_by_value,
                }
                for s in sorted(specs.values(), key=lambda s: s.order)
            ],
        }
    )
    wanted: list[str] = payload.get("cases") or [
        s.name for s in sorted(specs.values(), key=lambda s: s.order)
    ]

    if cleared is not None and not cleared():
        return  # the host refused the code: none of it runs (the host reads nothing more)
    captured = BoundedText(CASE_STDOUT_LIMIT)
    try:
        with contextlib.redirect_stdout(captured):
            solution = load_module("solution", solution_code, solution_path)
    except BaseException as exc:
        send(
            {
                "type": "import_error",
                **describe_exception(exc, solution_path, code, single_task is not None),
                "stdout": captured.getvalue(),
            }
        )
        return
    entry_point = payload["entry_point"]
    if not callable(getattr(solution, entry_point, None)):
        send(
            {
                "type": "import_error",
                "exception": "MissingEntryPoint",
                "message": f"solution.py does not define {entry_point}()",
                "line": None,
            }
        )
        return

    for name in wanted:
        spec = specs.get(name)
        if spec is None:
            send({"type": "case", "name": name, "status": "missing", "message": "case not found in tests.py"})
            continue
        out = BoundedText(CASE_STDOUT_LIMIT)
        started = time.perf_counter()
        try:
            with contextlib.redirect_stdout(out):
                if judge is not None:
                    judge.begin_case(name)
                try:
                    value = funcs[name](solution)
                finally:
                    if judge is not None:
                        judge.end_case(name)
            encoded = encode(value)
        except values.UnsupportedValue as exc:
            elapsed = (time.perf_counter() - started) * 1000
            send(
                {
                    "type": "case",
                    "name": name,
                    "status": "error",
                    "exception": "UnsupportedValue",
                    "message": str(exc),
                    "time_ms": elapsed,
                    "stdout": out.getvalue(),
                }
            )
            continue
        except BaseException as exc:
            elapsed = (time.perf_counter() - started) * 1000
            send(
                {
                    "type": "case",
                    "name": name,
                    "status": "error",
                    **describe_exception(exc, solution_path, code, single_task is not None),
                    "time_ms": elapsed,
                    "stdout": out.getvalue(),
                }
            )
            continue
        elapsed = (time.perf_counter() - started) * 1000
        send(
            {
                "type": "case",
                "name": name,
                "status": "ok",
                "value": encoded,
                "time_ms": elapsed,
                "stdout": out.getvalue(),
            }
        )
    send({"type": "done"})
