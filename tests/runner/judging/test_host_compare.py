"""The host comparer is total: whatever a case returns is compared, or refused as the learner's
error with a reason, never ``internal_error``; and nothing a returned object says about itself
(``__eq__``, ``__float__``, ``__len__``, ``__iter__``, a ``torch*`` module name) takes part.

Run against the real sandbox without the source policy (``judge_probe``): the comparer must hold
on its own, for code the policy would refuse, and for a harness whose encoder was replaced.
"""

from __future__ import annotations

import json
import math
import textwrap

import pytest

from runner.judging import host_compare
from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn


def code(src: str) -> str:
    return textwrap.dedent(src).lstrip()


# (name, the probe's body, the verdict, words of the message). The reference returns 0.
RETURNS = [
    ("huge int", "return 10**400", Verdict.RUNTIME_ERROR, "too large to compare"),
    ("huge negative int in a list", "return [-(10**400)]", Verdict.RUNTIME_ERROR, "too large to compare"),
    ("huge int in a dict", "return {'a': 10**5000}", Verdict.RUNTIME_ERROR, "too large to compare"),
    ("nan", "return float('nan')", Verdict.WRONG_ANSWER, "expected 0, got nan"),
    ("inf", "return float('inf')", Verdict.WRONG_ANSWER, "expected 0, got inf"),
    (
        "nan with a payload, in a tensor",
        "import torch\n    return torch.tensor([0x7FC00001], dtype=torch.int32).view(torch.float32)",
        Verdict.WRONG_ANSWER,
        "expected a number, got a tensor",
    ),
    (
        "fake class from a torch module",
        "class Fake:\n        dtype = 'float32'\n        def detach(self):\n            return self\n"
        "    Fake.__module__ = 'torch.fake'\n    return Fake()",
        Verdict.RUNTIME_ERROR,
        "not a tensor or plain data",
    ),
    (
        "tensor subclass",
        "import torch\n    class T(torch.Tensor):\n        pass\n    return torch.zeros(()).as_subclass(T)",
        Verdict.RUNTIME_ERROR,
        "tensor subclass",
    ),
    (
        "int whose __eq__ lies",
        "class I(int):\n        def __eq__(self, other):\n            return True\n    return I(5)",
        Verdict.WRONG_ANSWER,
        "expected 0, got 5",
    ),
    (
        "float whose __float__ lies",
        "class F(float):\n        def __float__(self):\n            return 0.0\n    return F(3.0)",
        Verdict.WRONG_ANSWER,
        "expected 0, got 3",
    ),
    (
        "list whose __iter__ and __len__ lie",
        "class L(list):\n        def __iter__(self):\n            return iter([])\n"
        "        def __len__(self):\n            return 0\n    return L([1, 2])",
        Verdict.WRONG_ANSWER,
        "expected a number, got a list",
    ),
    (
        "dict whose items lie",
        "class D(dict):\n        def items(self):\n            return []\n    return D(a=1)",
        Verdict.WRONG_ANSWER,
        "expected a number, got a dict",
    ),
    (
        "str subclass",
        "class S(str):\n        def __eq__(self, other):\n            return True\n    return S('0')",
        Verdict.WRONG_ANSWER,
        "expected a number, got a str",
    ),
    ("a cycle", "x = []\n    x.append(x)\n    return x", Verdict.RUNTIME_ERROR, "nested too deeply"),
    (
        "deep nesting",
        "x = 0\n    for _ in range(10000):\n        x = [x]\n    return x",
        Verdict.RUNTIME_ERROR,
        "nested too deeply",
    ),
    ("enormous list", "return [0] * 2_000_001", Verdict.RUNTIME_ERROR, "too large"),
    ("bytes", "return b'0'", Verdict.RUNTIME_ERROR, "bytes are not compared"),
    ("set", "return {0}", Verdict.RUNTIME_ERROR, "sets have no order"),
    ("complex", "return 0j", Verdict.RUNTIME_ERROR, "complex numbers are not compared"),
    ("an object", "return object()", Verdict.RUNTIME_ERROR, "JSON-like values"),
]


@pytest.mark.parametrize(("name", "body", "verdict", "words"), RETURNS, ids=[r[0] for r in RETURNS])
def test_every_returned_value_is_compared_or_refused(
    judge_probe: JudgeFn, name: str, body: str, verdict: str, words: str
) -> None:
    result = judge_probe(f"def probe():\n    {body}\n", mode="submit")
    assert result.verdict == verdict, (name, result.verdict, result.message)
    assert words in result.cases[0].message, (name, result.cases[0].message)
    assert result.verdict != Verdict.INTERNAL_ERROR and not result.cause


def test_a_replaced_encoder_changes_nothing(judge_probe: JudgeFn) -> None:
    """The harness encodes values with a sealed encoder bound before the learner's import
    (runner.sandbox.sealed_records): replacing ``values.encode`` neither forges a value nor feeds
    the host a malformed one (the host's reading of malformed values: the tests below)."""
    src = code("""
        import runner.records.values as values
        # Through the namespace as a dict: the module itself is read-only (frozen_modules).
        vars(values)["encode"] = lambda value: {"__tensor__": {"dtype": "x", "shape": [2], "data": [10**400]}}
        def probe():
            return 0
    """)
    result = judge_probe(src, mode="submit")
    assert result.verdict == Verdict.ACCEPTED and not result.cause, result.message


def test_a_replaced_clock_cannot_crash_the_host(judge_probe: JudgeFn) -> None:
    """The case's time is measured in the learner's process too: a clock that jumps by 10**400
    makes a time no float holds, which the host reads as 0 instead of failing."""
    src = code("""
        import itertools
        import time
        calls = itertools.count()
        def probe():
            vars(time)["perf_counter"] = lambda: 10**400 * next(calls)  # the module is read-only
            return 0
    """)
    result = judge_probe(src, mode="submit")
    assert result.verdict == Verdict.ACCEPTED and not result.cause, result.message
    assert [c.time_ms for c in result.cases] == [0.0, 0.0]  # a negative time, then a huge one


FORGED = [
    ("huge int", 10**400, "too large"),
    ("huge tensor element", {"__tensor__": {"dtype": "int64", "shape": [1], "data": [10**400]}}, "too large"),
    (
        "shape and data disagree",
        {"__tensor__": {"dtype": "f", "shape": [3], "data": [1.0]}},
        "does not match",
    ),
    ("negative shape", {"__tensor__": {"dtype": "f", "shape": [-1], "data": []}}, "malformed shape"),
    ("boolean shape", {"__tensor__": {"dtype": "f", "shape": [True], "data": [1.0]}}, "malformed shape"),
    (
        "string element",
        {"__tensor__": {"dtype": "f", "shape": [1], "data": ["1"]}},
        "malformed tensor element",
    ),
    (
        "extra tensor keys",
        {"__tensor__": {"dtype": "f", "shape": [], "data": [1]}, "x": 1},
        "malformed tensor",
    ),
    ("bad non-finite marker", {"__float__": "huge"}, "malformed number"),
    ("unhashable non-finite marker", {"__float__": ["nan"]}, "malformed number"),
    (
        "unhashable non-finite marker in a tensor",
        {"__tensor__": {"dtype": "float32", "shape": [1], "data": [{"__float__": {"a": 1}}]}},
        "malformed tensor element",
    ),
    ("tuple (not JSON)", (1, 2), "holds a tuple"),
]


@pytest.mark.parametrize(("name", "value", "words"), FORGED, ids=[f[0] for f in FORGED])
def test_forged_reports_are_refused_on_the_host(name: str, value: object, words: str) -> None:
    found = host_compare.failure(0, value, 1e-6, 1e-6, public=True)
    assert found is not None and found.kind == "refused", name
    assert words in found.message(), (name, found.message())
    assert host_compare.display(value) == "(a value the judge cannot compare)"


def test_deep_forged_nesting_is_refused_without_recursion() -> None:
    value: object = 0
    for _ in range(100_000):
        value = [value]
    found = host_compare.failure([0], value, 0.0, 0.0, public=False)
    assert found is not None and "nested too deeply" in found.message()


def test_plain_values_still_compare() -> None:
    tensor = {"__tensor__": {"dtype": "float32", "shape": [2], "data": [1.0, {"__float__": "nan"}]}}
    assert host_compare.failure(tensor, tensor, 1e-6, 1e-6, public=True) is None
    assert host_compare.failure({"a": [1, 2.5]}, {"a": [1, 2.5]}, 0.0, 0.0, public=True) is None
    message = host_compare.failure(1.0, math.pi, 0.0, 0.0, public=True)
    assert message is not None and message.kind == "values" and "expected 1" in message.message()


@pytest.mark.parametrize(
    "forged",
    [{"__float__": ["nan"]}, {"__tensor__": {"dtype": "float32", "shape": [1], "data": [{"__float__": {}}]}}],
    ids=["non-finite marker holding a list", "tensor element marker holding a dict"],
)
def test_a_case_record_forged_on_the_channel_is_the_learners_error(
    judge_probe: JudgeFn, forged: object
) -> None:
    """Code that writes its own case record to the result channel (fd 3) and ends the process before
    the harness writes one, holding a value no encoder makes: the host refuses it as the learner's
    (it once raised on the unhashable marker: internal_error)."""
    record = json.dumps({"type": "case", "name": "example", "status": "ok", "value": forged, "time_ms": 0})
    src = code(f"""
        import os
        def probe():
            os.write(3, {(record + chr(10)).encode()!r})
            os._exit(0)
    """)
    result = judge_probe(src, mode="submit")
    assert result.verdict != Verdict.INTERNAL_ERROR and not result.cause, result.message
    example = next(c for c in result.cases if c.name == "example")
    assert "malformed" in example.message, example.message
