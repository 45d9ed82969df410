"""``tests.py`` compiled once on the host, loaded without compiling in every job's sandbox.

A problem's ``tests.py`` is the instructor's (trusted), and the host runs the interpreter the
sandbox runs (``runner.sandbox`` starts the zygote with ``sys.executable``). So the host compiles
it once per problem version (cached by its source) and sends the code object marshalled with the
job; the harness loads it with :func:`marshal.loads` (about 20 µs instead of a compile of about a
millisecond). The code object's filename is the path the sandbox writes the file to, so tracebacks
are those of a compile in the sandbox. When the magic number or the path differs, or the payload
has no compiled tests (a job built by hand), the harness compiles the source as before.

Marshalled code only ever travels host → sandbox, never the other way: nothing here loads data
that learner code could have written.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import marshal
import types
from typing import Any

TESTS_PATH = "/tmp/tests.py"  # where runner.zygote writes tests.py: harness.run's workdir + TESTS_FILE
MAGIC = importlib.util.MAGIC_NUMBER.hex()


@functools.lru_cache(maxsize=256)
def compiled_tests(source: str, filename: str = TESTS_PATH) -> dict[str, str]:
    """``source`` compiled for ``filename``: ``{"magic", "filename", "marshal"}`` (base64), JSON-ready.

    Raises ``SyntaxError``/``ValueError`` like :func:`compile` for a broken ``tests.py``; the
    caller then sends the source alone and the sandbox reports the error as before.
    """
    code = compile(source, filename, "exec", dont_inherit=True)
    marshalled = base64.b64encode(marshal.dumps(code)).decode("ascii")
    return {"magic": MAGIC, "filename": filename, "marshal": marshalled}


def tests_code(payload: dict[str, Any], filename: str) -> types.CodeType:
    """In the sandbox: the tests' code object from ``payload["tests_code"]`` when it was compiled by
    this interpreter for ``filename``, otherwise compiled here from ``payload["tests_source"]``."""
    sent = payload.get("tests_code")
    if isinstance(sent, dict) and sent.get("magic") == MAGIC and sent.get("filename") == filename:
        code = marshal.loads(base64.b64decode(sent["marshal"]))
        if isinstance(code, types.CodeType) and code.co_filename == filename:
            return code
    return compile(payload["tests_source"], filename, "exec", dont_inherit=True)
