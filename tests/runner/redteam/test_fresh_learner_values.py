"""Values test_learner_values.py does not try, in the real sandbox: tensor kinds and torch objects a
learner can return, and exceptions of torch's own classes. Each is judged on the probe problem (its
reference returns 0) without the source policy, so the harness's encoder and the host's comparer
meet the value itself: each must be the learner's verdict with a message, never the platform's
failure (``internal_error``), and never a pass (none of them is 0).
"""

from __future__ import annotations

import pytest

from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn

BODIES = {
    "a nested tensor": "import torch\n    return torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])",
    "a jagged nested tensor": (
        "import torch\n    return torch.nested.nested_tensor("
        "[torch.ones(2), torch.ones(3)], layout=torch.jagged)"
    ),
    "a sparse CSR tensor": "import torch\n    return torch.eye(3).to_sparse_csr()",
    "a float8 tensor": "import torch\n    return torch.ones(2, dtype=torch.float8_e4m3fn)",
    "a bfloat16 tensor": "import torch\n    return torch.ones(2, dtype=torch.bfloat16)",
    "a uint64 tensor past int64": "import torch\n    return torch.tensor([2**64 - 1], dtype=torch.uint64)",
    "a conjugate view": "import torch\n    return torch.tensor([1 + 1j]).conj()",
    "a negative-bit view": "import torch\n    return torch._neg_view(torch.ones(2))",
    "a zero-size tensor with a huge dimension": "import torch\n    return torch.empty(0, 2**40)",
    "a zero-stride tensor of 2**31 elements": "import torch\n    return torch.ones(1).expand(2**31)",
    "a torch.Size": "import torch\n    return torch.Size([1, 2])",
    "a torch.return_types value": "import torch\n    return torch.ones(3).max(0)",
    "a dtype": "import torch\n    return torch.float32",
    "a device": "import torch\n    return torch.device('cpu')",
    "a generator": "import torch\n    return torch.Generator()",
    "a module": "import torch\n    return torch.nn.Linear(2, 2)",
    "a parameter holding a wrong value": "import torch\n    return torch.nn.Parameter(torch.ones(1))",
    "a torch.finfo": "import torch\n    return torch.finfo(torch.float32)",
    "torch's OutOfMemoryError raised": "import torch\n    raise torch.OutOfMemoryError('fake')",
    "an exception subclassing torch's errors": (
        "import torch\n    class E(torch.OutOfMemoryError, TimeoutError):\n        pass\n    raise E('fake')"
    ),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_torch_value_is_never_the_platforms_failure(judge_probe: JudgeFn, name: str) -> None:
    result = judge_probe(f"def probe():\n    {BODIES[name]}\n", mode="submit")
    assert result.verdict != Verdict.INTERNAL_ERROR and not result.cause, (name, result)
    assert result.verdict in (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT_EXCEEDED), (
        name,
        result.verdict,
        result.message,
    )
    assert result.cases and result.cases[0].message, (name, result)
