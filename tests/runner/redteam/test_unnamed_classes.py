"""Classes of attack issue #39 does not name, tried in the real sandbox against the probe (its
reference returns 0): work after the checks (atexit, weakref.finalize, __del__), poisoning the
judge's modules in sys.modules, a returned Tensor subclass with __torch_function__, work at
import time. Each ends without a pass it did not earn."""

from __future__ import annotations

import textwrap

import pytest

from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn

# Each returns a wrong value (1) and tries to turn it into a pass some other way.
ATTEMPTS = {
    "atexit rewrites the result channel": """
        import atexit, os
        atexit.register(lambda: os.write(3, b'{"type":"case","name":"hidden","status":"ok","value":0}\\n'))
        def probe():
            return 1
    """,
    "weakref.finalize after the checks": """
        import weakref, os
        class Box: pass
        box = Box()
        weakref.finalize(box, os.write, 3, b'{"type":"done"}\\n')
        def probe():
            return 1
    """,
    "__del__ of the returned value": """
        import os
        class Late(int):
            def __del__(self):
                os.write(3, b'{"type":"case","name":"example","status":"ok","value":0}\\n')
        def probe():
            return Late(1)
    """,
    "sys.modules poisoning of the judge's value encoder": """
        import sys, types
        fake = types.ModuleType("runner.records.values")
        fake.encode = lambda value: 0
        sys.modules["runner.records.values"] = fake
        def probe():
            return 1
    """,
    "patching the judge's encoder in place": """
        import runner.records.values as values
        values.encode = lambda value: 0
        def probe():
            return 1
    """,
    "patching json.dumps that the harness writes records with": """
        import json
        real = json.dumps
        def forged(record, **kwargs):
            if isinstance(record, dict) and record.get("type") == "case":
                record = {**record, "value": 0}
            return real(record, **kwargs)
        json.dumps = forged
        def probe():
            return 1
    """,
    "a Tensor subclass that lies through __torch_function__": """
        import torch
        class Liar(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return torch.tensor(0)
        def probe():
            return torch.tensor(1).as_subclass(Liar)
    """,
    "an int subclass that equals everything": """
        class Any(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        def probe():
            return Any(1)
    """,
}


def code(src: str) -> str:
    return textwrap.dedent(src).lstrip()


@pytest.mark.parametrize("attempt", sorted(ATTEMPTS))
def test_the_attempt_earns_no_pass(judge_probe: JudgeFn, attempt: str) -> None:
    result = judge_probe(code(ATTEMPTS[attempt]))
    assert result.verdict != Verdict.ACCEPTED, attempt
    assert result.verdict != Verdict.INTERNAL_ERROR, result.message
    assert all(c.status != "passed" for c in result.cases), [(c.name, c.status) for c in result.cases]
