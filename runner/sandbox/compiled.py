"""The job's payload on its way from the host to its spare: marshalled, ``tests.py`` compiled.

A problem's ``tests.py`` is the instructor's (trusted), and the host runs the interpreter the
sandbox runs (``runner.sandbox.host`` starts the zygote with ``sys.executable``). So the host compiles
it once per problem version (cached by its source) and the payload carries the code object;
the harness runs it without compiling (a compile took about a millisecond). The code object's
filename is the path the sandbox writes the file to, so tracebacks are those of a compile in the
sandbox. Where the payload holds no code object for that path (a job built by hand, a
``tests.py`` that does not compile), the harness compiles the source as before.

The payload (plain values: text, numbers, lists, dicts, and that code object) travels as
:mod:`marshal` data behind this interpreter's magic number (:func:`encode_payload`,
:func:`decode_payload`): a fresh spare decoded the seed problem's as JSON, with the compiled
tests inside in base64, in ~0.44 ms of CPU and ~160 copy-on-write faults, as marshal data in
~0.22 ms and ~84 (docs/benchmarks.md, the seventeenth pass).

Marshalled data only ever travels host → sandbox, never the other way: nothing here loads data
that learner code could have written.
"""

from __future__ import annotations

import functools
import importlib.util
import marshal
import types
from typing import Any

TESTS_PATH = (
    "/tmp/tests.py"  # where runner.sandbox.zygote writes tests.py: harness.run's workdir + TESTS_FILE
)
MAGIC = importlib.util.MAGIC_NUMBER  # marshal's code objects are this interpreter's own


@functools.lru_cache(maxsize=256)
def compiled_tests(source: str, filename: str = TESTS_PATH) -> types.CodeType:
    """``source`` compiled for ``filename``, once per source.

    Raises ``SyntaxError``/``ValueError`` like :func:`compile` for a broken ``tests.py``; the
    caller then sends the source alone and the sandbox reports the error as before.
    """
    return compile(source, filename, "exec", dont_inherit=True)


def tests_code(payload: dict[str, Any], filename: str) -> types.CodeType:
    """In the sandbox: the tests' code object from ``payload["tests_code"]`` when the host
    compiled it for ``filename``, otherwise compiled here from ``payload["tests_source"]``."""
    sent = payload.get("tests_code")
    if isinstance(sent, types.CodeType) and sent.co_filename == filename:
        return sent
    return compile(payload["tests_source"], filename, "exec", dont_inherit=True)


class PayloadError(ValueError):
    """The bytes are not a payload this interpreter encoded."""


def encode_payload(payload: dict[str, Any]) -> bytes:
    """``payload`` as the host sends it to a spare: the magic number, then marshal data."""
    return MAGIC + marshal.dumps(payload)


def decode_payload(data: bytes) -> dict[str, Any]:
    """In the spare: the payload :func:`encode_payload` made, or :class:`PayloadError`."""
    if not data.startswith(MAGIC):
        raise PayloadError("the job's payload was encoded by another interpreter than the sandbox's")
    try:
        payload = marshal.loads(memoryview(data)[len(MAGIC) :])
    except (EOFError, ValueError, TypeError) as exc:
        raise PayloadError(f"the job's payload cannot be decoded: {exc}") from None
    if not isinstance(payload, dict):
        raise PayloadError("the job's payload is not a mapping")
    return payload
