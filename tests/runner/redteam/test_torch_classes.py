"""torch's writable classes (``nn.Module``'s subclasses, tensor classes beyond ``Tensor`` and
``Parameter``, everything else torch defines) against a learner who rewrites them, in the real sandbox.

These classes cannot be made immutable (PyTorch assigns instances' ``__class__`` between them), so a
change is found instead: ``runner.testing.class_versions`` compares each class's CPython version tag
at every case's end with the one recorded when the guard came into force. Each attempt below changes
a class by another spelling — an alias, ``setattr``, ``type.__setattr__``, a class reached through a
value, a write undone before the case ends, a deletion, a function's code — and is judged without
the source policy, so only the run-time layer stands between it and a pass: never accepted, and the
message names the class. The probe's reference returns 0, so each attempt returns the right value.
The honest uses of these classes' run-time machinery (parametrizations, ``weight_norm`` and
``spectral_norm``, lazy modules, ``UninitializedParameter``, and the classes torch writes itself:
hook handles, checkpointing's device, distributions' validation flag) still pass.
"""

from __future__ import annotations

import textwrap

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations
from runner.verdict import Verdict
from tests.runner.conftest import BANK, JudgeFn

MODIFIED = "Modifying or inspecting the judge is not allowed"

# Each: (code run at import or in probe(), the class the message must name).
CHANGES = {
    "nn.Linear.forward through an alias, at import": (
        "import torch.nn as nn\nL = nn.Linear\nL.forward = lambda self, x: x\n",
        "torch.nn.modules.linear.Linear",
    ),
    "nn.Sequential.__call__ shadowing nn.Module's": (
        "import torch\nsetattr(torch.nn.Sequential, '__call__', lambda self, *a: None)\n",
        "torch.nn.modules.container.Sequential",
    ),
    "_call_impl on a subclass through type.__setattr__": (
        "import torch\ntype.__setattr__(torch.nn.ReLU, '_call_impl', lambda self, *a, **k: a[0])\n",
        "torch.nn.modules.activation.ReLU",
    ),
    "a class reached through a value": (
        "import torch\nm = torch.nn.BatchNorm1d(2)\ntype(m).forward = lambda self, x: x\n",
        "torch.nn.modules.batchnorm.BatchNorm1d",
    ),
    "a method deleted": (
        "import torch\ndel torch.nn.MultiheadAttention.forward\n",
        "torch.nn.modules.activation.MultiheadAttention",
    ),
    "a tensor class's __torch_function__": (
        "import torch\nfrom torch.nn.parameter import UninitializedParameter as U\n"
        "U.__torch_function__ = classmethod(lambda *a, **k: 0)\n",
        "torch.nn.parameter.UninitializedParameter",
    ),
    "Parameter through a value": (
        "import torch\ntype(torch.nn.Parameter(torch.zeros(1))).zero_ = print\n",
        "torch.nn.parameter.Parameter",
    ),
    "a scheduler's method": (
        "import torch\ntorch.optim.lr_scheduler.LRScheduler.get_last_lr = lambda self: [0.0]\n",
        "torch.optim.lr_scheduler.LRScheduler",
    ),
    "a DataLoader's iterator": (
        "import torch.utils.data as d\nd.DataLoader.__iter__ = lambda self: iter(())\n",
        "torch.utils.data.dataloader.DataLoader",
    ),
}

# Changed inside the case and put back before it ends: the values are as they were, the tag is not.
RESTORED = textwrap.dedent("""
    import torch.nn as nn

    def probe():
        original = nn.Linear.__dict__["forward"]
        nn.Linear.forward = lambda self, x: x
        try:
            nn.Linear(2, 2)(nn.Parameter(nn.init.zeros_(nn.Linear(2, 2).weight)))
        finally:
            nn.Linear.forward = original
        return 0
""")


@pytest.mark.parametrize("route", sorted(CHANGES))
def test_a_changed_torch_class_fails_every_case(judge_probe: JudgeFn, route: str) -> None:
    code, name = CHANGES[route]
    result = judge_probe(code + "\n\ndef probe():\n    return 0\n", mode="submit", time_s=30)
    assert result.verdict == Verdict.RUNTIME_ERROR, (route, result.verdict, result.message)
    for case in result.cases:
        assert MODIFIED in case.message and name in case.message, (route, case.message)


def test_a_change_put_back_before_the_case_ends_is_found(judge_probe: JudgeFn) -> None:
    result = judge_probe(RESTORED, mode="submit", time_s=30)
    assert result.verdict == Verdict.RUNTIME_ERROR, (result.verdict, result.message)
    assert "torch.nn.modules.linear.Linear" in result.cases[0].message, result.cases[0].message


def test_a_torch_functions_code_cannot_be_replaced(judge_probe: JudgeFn) -> None:
    # No class changes: the function object in nn.Linear's namespace would; the audit hook refuses it.
    code = (
        "import torch.nn as nn\n\ndef mine(self, x):\n    return x\n\n"
        "nn.Linear.forward.__code__ = mine.__code__\n\ndef probe():\n    return 0\n"
    )
    result = judge_probe(code, mode="submit", time_s=30)
    assert result.verdict == Verdict.RUNTIME_ERROR, (result.verdict, result.message)
    assert "torch.nn.modules.linear" in result.cases[0].message, result.cases[0].message


# A class's namespace written as a dict: the mapping proxy is read-only, and the real dict behind it
# is reachable only through gc, which the audit hook refuses.
NAMESPACE_WRITES = {
    "the mapping proxy": ("import torch.nn as nn\nnn.Linear.__dict__['forward'] = print\n", "mappingproxy"),
    "vars() of the class": ("import torch.nn as nn\nvars(nn.Linear)['forward'] = print\n", "mappingproxy"),
    "the dict behind it, through gc": (
        "import gc\nimport torch.nn as nn\ngc.get_referents(nn.Linear.__dict__)[0]['forward'] = print\n",
        "gc.get_referents",
    ),
}


@pytest.mark.parametrize("route", sorted(NAMESPACE_WRITES))
def test_a_class_namespace_cannot_be_written_as_a_dict(judge_probe: JudgeFn, route: str) -> None:
    code, why = NAMESPACE_WRITES[route]
    result = judge_probe(code + "\n\ndef probe():\n    return 0\n", mode="submit", time_s=30)
    assert result.verdict == Verdict.RUNTIME_ERROR, (route, result.verdict, result.message)
    assert why in result.cases[0].message, (route, result.cases[0].message)


HONEST = textwrap.dedent("""
    import torch
    import torch.nn as nn
    from torch.nn.utils import parametrize, parametrizations


    class Symmetric(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)


    def probe():
        x = torch.randn(2, 3)
        m = nn.Linear(3, 3)
        parametrize.register_parametrization(m, "weight", Symmetric())
        m(x).sum().backward()
        parametrize.remove_parametrizations(m, "weight")
        w = parametrizations.weight_norm(nn.Linear(3, 4))
        w(x).sum().backward()
        parametrizations.spectral_norm(nn.Linear(3, 4))(x)
        nn.utils.weight_norm(nn.Linear(3, 2))(x)
        lazy = nn.LazyLinear(4)
        lazy(x)
        nn.LazyConv1d(2, 1)(torch.randn(1, 3, 4))
        p = nn.parameter.UninitializedParameter()
        p.materialize((2, 2))
        x.requires_grad_(True)
        torch.utils.checkpoint.checkpoint(nn.Linear(3, 3), x, use_reentrant=False).sum().backward()
        torch.distributions.Distribution.set_default_validate_args(True)
        torch.distributions.Normal(0.0, 1.0).log_prob(torch.zeros(1))
        h = lazy.register_forward_hook(lambda *a: None)
        lazy(x)
        h.remove()
        opt = torch.optim.SGD(lazy.parameters(), lr=0.1)
        torch.optim.lr_scheduler.StepLR(opt, 1)
        for _ in torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x), batch_size=1):
            pass


        class Mine(nn.Linear):  # a learner's own subclass stays theirs
            pass

        Mine.forward = lambda self, x: x
        Mine(1, 1)(x)
        return 0
""")


def test_parametrizations_lazy_modules_and_uninitialized_parameters_still_work(judge_probe: JudgeFn) -> None:
    result = judge_probe(HONEST, mode="submit", time_s=30)
    assert result.verdict == Verdict.ACCEPTED, (
        result.verdict,
        result.message,
        [c.message for c in result.cases],
    )


# evaluation-loop: "put the model in eval mode and run every forward under no_grad" — done instead by
# a rewritten nn.Sequential.__call__, so the solution's own loop does neither.
EVAL_ELSEWHERE = textwrap.dedent("""
    import torch
    import torch.nn as nn

    _module_call = nn.Module.__call__

    def _call(self, *args, **kwargs):
        modes = [(m, m.training) for m in self.modules()]
        self.eval()
        try:
            with torch.no_grad():
                return _module_call(self, *args, **kwargs)
        finally:
            for m, t in modes:
                m.training = t

    nn.Sequential.__call__ = _call

    def evaluate(model, loader, loss_fn):
        total, correct, count = 0.0, 0, 0
        for inputs, targets in loader:
            outputs = model(inputs)
            n = targets.shape[0]
            total += loss_fn(outputs, targets).item() * n
            correct += (outputs.argmax(dim=1) == targets).sum().item()
            count += n
        return {"loss": total / count, "accuracy": correct / count}
""")


@pytest.fixture(scope="module")
def evaluation_loop(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / "evaluation-loop")
    return problem, runner.compute_expectations(problem)


def test_a_rule_moved_into_a_rewritten_torch_class_is_not_accepted(
    runner: Runner, evaluation_loop: tuple[ProblemFiles, Expectations]
) -> None:
    files, expectations = evaluation_loop
    result = runner.judge(runner.job_for(files, expectations, EVAL_ELSEWHERE, "submit"))
    assert not result.accepted
    case = next(c for c in result.cases if c.name == "forward_runs_in_eval_without_grad")
    assert MODIFIED in case.message and "Sequential" in case.message, case.message
