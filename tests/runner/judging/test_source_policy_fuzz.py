"""The source policy answers every file, found by search: for any source, ``check`` returns a
refusal (a line, a column and a message) or None, and never raises, since an exception there is
the platform's failure on the learner's submission. Sources are put together from pieces of
Python that reach the walk's every kind of node (comprehensions, lambdas, classes and methods,
decorators, walrus, match, f-strings, star-arguments, global and nonlocal, try/except*, async,
attribute chains through dunders and private names) around the bank's own solutions."""

from __future__ import annotations

from pathlib import Path

from hypothesis import event, given, settings
from hypothesis import strategies as st

from runner.judging.source_policy import check

BANK = Path(__file__).resolve().parents[3] / "problems"
SOLUTIONS = sorted((p.read_text() for p in BANK.glob("*/solution.py")), key=len)[:12]
STATEMENTS = [
    "y = x",
    "y = x.sum(dim=-1)",
    "y = [t * 2 for t in x if t]",
    "y = {k: v for k, v in enumerate(x)}",
    "y = (lambda a, *b, c=1, **d: a)(x)",
    "if (n := len(x)) > 1: y = n",
    "match x:\n    case [a, *rest]: y = a\n    case {'k': v}: y = v\n    case _: y = None",
    "y = f'{x!r:>{10}}'",
    "y = torch.nn.functional.relu(x)",
    "y = x.__class__",
    "y = x._version",
    "y = type(x).__mro__",
    "y = getattr(x, 'shape')",
    "y = torch._C",
    "import torch.nn as nn",
    "from torch import nn, optim",
    "from torch.nn import *",
    "import os",
    "global g",
    "del y",
    "try:\n    y = 1\nexcept* ValueError:\n    pass",
    "try:\n    y = 1\nexcept Exception as e:\n    y = e.__traceback__",
    "with torch.no_grad(): y = x * 2",
    "for i in range(3):\n    y = i\nelse:\n    y = 0",
    "while False:\n    break",
    "class M(nn.Module):\n    def forward(self, x):\n        return self._x",
    "@staticmethod\ndef g(*a, **k):\n    return a[0]",
    "async def h():\n    await h()",
    "def k():\n    nonlocal_y = yield 1\n    return nonlocal_y",
    "y = x[::2, None, ...]",
    "y = [*x, *x]",
    "y = {**{}, 'a': 1}",
    "y = x if x else -x",
    "assert x is not None, 'x'",
    "y = 1 if 1 else (yield)",
    "raise ValueError('no') from None",
    "y = exec",
    "y = vars()",
    "y = x.data.__setattr__",
    "y = torch.Tensor.add_.__get__(x)",
    "lambda: (yield)",
    "type Alias = int",
    "y = x @ x.T",
    "y = not x or x and x",
    "print(*x, sep='', file=None)",
]


@st.composite
def sources(draw: st.DrawFn) -> str:
    base = draw(st.sampled_from(["", *SOLUTIONS]))
    lines = draw(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=6))
    indent = draw(st.sampled_from(["", "    "]))
    body = "\n".join(indent + line.replace("\n", "\n" + indent) for line in lines)
    head = "def f(x):\n" if indent else ""
    return base + "\n\n" + head + body + "\n" if draw(st.booleans()) else head + body + "\n\n" + base


@settings(max_examples=300, deadline=None)
@given(source=sources())
def test_every_source_is_refused_or_let_through(source: str) -> None:
    found = check(source)
    if found is None:
        event("let through (or a syntax error, left to the sandbox)")
        return
    event("refused")
    assert found.line >= 1 and found.column >= 1 and found.message


@settings(max_examples=200, deadline=None)
@given(source=st.text(max_size=200))
def test_any_text_is_answered(source: str) -> None:
    found = check(source)
    assert found is None or (found.line >= 1 and found.message)
