"""Values a learner controls never end in internal_error, in the real sandbox: the ones
test_host_compare.py does not try (pickling hooks, protocol methods that raise, odd tensors,
exceptions that lie, raised values that cannot be shown, values crossing check_call).

Each is judged on the probe problem (its reference returns 0) without the source policy, so the
host's comparer and the harness meet the value itself; each is wrong (a subclass of a built-in is
read through the built-in's own methods, so one holding 1 is 1, whatever its methods say) and must
be the learner's verdict, with a message, never the platform's failure.
"""

from __future__ import annotations

import pytest

from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn

BODIES = {
    "__reduce__ that runs code": (
        "class R:\n        def __reduce__(self):\n            return (print, ('pickled',))\n    return R()"
    ),
    "__reduce_ex__ and __getstate__ on an int subclass": (
        "class I(int):\n"
        "        def __reduce_ex__(self, p):\n"
        "            raise RuntimeError('no')\n"
        "        def __getstate__(self):\n"
        "            raise RuntimeError('no')\n"
        "    return I(1)"
    ),
    "__eq__ that raises": (
        "class E(float):\n"
        "        def __eq__(self, o):\n"
        "            raise RuntimeError('eq')\n"
        "    return E(1.0)"
    ),
    "__len__ that raises, in a list subclass": (
        "class L(list):\n        def __len__(self):\n            raise RuntimeError('len')\n    return L([0])"
    ),
    "__iter__ that raises, in a tuple subclass": (
        "class T(tuple):\n"
        "        def __iter__(self):\n"
        "            raise RuntimeError('iter')\n"
        "    return T((0,))"
    ),
    "__repr__ and __str__ that raise": (
        "class F(float):\n"
        "        def __repr__(self):\n"
        "            raise RuntimeError('repr')\n"
        "        __str__ = __repr__\n"
        "    return F(1.0)"
    ),
    "__hash__ that raises, as a dict key": (
        "class K(str):\n"
        "        def __hash__(self):\n"
        "            raise RuntimeError('hash')\n"
        "    return {K('a'): 0}"
    ),
    "non-string dict keys": "return {(1, 2): 0, None: 1, 1.5: 2}",
    "a huge int as a dict key": "return {10**400: 0}",
    "a NaN with a payload in a nested list": (
        "import struct\n    return [[struct.unpack('<d', struct.pack('<Q', 0x7FF8DEADBEEF0001))[0]]]"
    ),
    "a float subclass holding inf": "class F(float):\n        pass\n    return [F('inf'), F('-inf')]",
    "a complex tensor": "import torch\n    return torch.tensor([1 + 2j])",
    "a sparse tensor": "import torch\n    return torch.eye(2).to_sparse()",
    "a meta tensor": "import torch\n    return torch.empty(3, device='meta')",
    "an expanded tensor (overlapping memory)": "import torch\n    return torch.zeros(1).expand(5)",
    "a tensor with sixty dimensions": "import torch\n    return torch.zeros((1,) * 60)",
    "a named tensor": "import torch\n    return torch.zeros(2, names=('n',))",
    "a quantized tensor": (
        "import torch\n    return torch.quantize_per_tensor(torch.zeros(2), 0.1, 0, torch.quint8)"
    ),
    "a tensor that requires grad inside a dict": (
        "import torch\n    return {'t': torch.zeros(2, requires_grad=True) * 2}"
    ),
    "a generator": "return (i for i in range(3))",
    "a function": "return print",
    "a type": "return int",
    "a module-like fake with torch's name": (
        "class M:\n        __name__ = 'torch'\n    M.__module__ = 'torch'\n    return M()"
    ),
    "a deep dict": "x = {}\n    for _ in range(5000):\n        x = {'a': x}\n    return x",
    "a huge string": "return 'x' * 50_000_000",
    "an exception whose __str__ raises": (
        "class E(Exception):\n"
        "        def __str__(self):\n"
        "            raise RuntimeError('str')\n"
        "    raise E()"
    ),
    "an exception with a huge message": "raise ValueError('x' * 10_000_000)",
    "an exception whose class lies about its name": (
        "class E(Exception):\n        pass\n    E.__name__ = '\\x1b[31mInternalError'\n    raise E('boom')"
    ),
    "a recursion error": "def f(n):\n        return f(n + 1)\n    return f(0)",
    "SystemExit with a huge code": "raise SystemExit(10**400)",
    "KeyboardInterrupt": "raise KeyboardInterrupt",
    "MemoryError": "raise MemoryError",
    "GeneratorExit": "raise GeneratorExit",
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_learner_value_is_never_the_platforms_failure(judge_probe: JudgeFn, name: str) -> None:
    result = judge_probe(f"def probe():\n    {BODIES[name]}\n", mode="submit")
    assert result.verdict != Verdict.INTERNAL_ERROR and not result.cause, (name, result)
    assert result.verdict in (
        Verdict.WRONG_ANSWER,
        Verdict.RUNTIME_ERROR,
        Verdict.MEMORY_LIMIT_EXCEEDED,
        Verdict.OUTPUT_LIMIT_EXCEEDED,
        Verdict.TIME_LIMIT_EXCEEDED,  # a huge string on a loaded machine
    ), (name, result.verdict, result.message)
    assert result.cases and result.cases[0].message, (name, result)
