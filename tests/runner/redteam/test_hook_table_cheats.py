"""Hook checks against a learner who hides hooks from the judge, in the real sandbox, on the
bank's forward-hook-activations ("register a forward hook on the first Linear, and remove it"):
a replaced or subclassed hook table, a hook written into a table beside a registered no-op one,
a global module hook doing the work, the hook observers' switch turned off around a silent hook
(the zygote puts the observers' wrappers in place turned off; a job's guard turns them on). Each
fails the hook case with the judge's message."""

from __future__ import annotations

import textwrap

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from tests.runner.conftest import BANK

HOOK_CASE = "uses_forward_hook_and_removes_it"
MODIFIED = "Modifying or inspecting the judge is not allowed"

PRELUDE = textwrap.dedent("""
    import torch
    import torch.nn as nn

    def _rounded(t):
        return [round(v, 4) for v in t.flatten().tolist()]

    def _result(act, out):
        return {"activation_shape": list(act.shape), "activation_values": _rounded(act),
                "final_output": _rounded(out)}

    def _model():
        torch.manual_seed(42)
        return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), torch.tensor([[1.0, 2.0, 3.0]])

    def _pre_hook_on_the_next_layer(model, x, switches=()):
        # The work done by a pre-hook on the next layer (it sees the first Linear's output),
        # registered with each switch turned off; a no-op hook registered and removed for the judge.
        seen = {}
        for switch in switches:
            switch[0] = False
        model[1].register_forward_pre_hook(lambda m, i: seen.setdefault("a", i[0].detach().clone()))
        for switch in switches:
            switch[0] = True
        model[0].register_forward_hook(lambda m, i, o: None).remove()
        with torch.no_grad():
            out = model(x)
        return _result(seen["a"], out)
""")

CHEATS = {
    # The table replaced by a dict subclass that says it is empty but still yields the hook,
    # so the hook keeps firing after the handle's remove() (which edits the old table).
    "table replaced by an empty-looking subclass": """
        class Hidden(dict):
            def __len__(self):
                return 0
            def __bool__(self):  # torch tests the table's truth before it walks it
                return True
        def forward_hook_test():
            model, x = _model()
            seen = {}
            def hook(m, i, o):
                seen["a"] = o.detach().clone()
            handle = model[0].register_forward_hook(hook)
            model[0]._forward_hooks = Hidden(model[0]._forward_hooks)
            handle.remove()
            with torch.no_grad():
                out = model(x)
            return _result(seen["a"], out)
    """,
    # The table replaced by a plain dict holding the hook: removal edits the old one.
    "table replaced by a copy": """
        def forward_hook_test():
            model, x = _model()
            seen = {}
            def hook(m, i, o):
                seen["a"] = o.detach().clone()
            handle = model[0].register_forward_hook(hook)
            model[0]._forward_hooks = dict(model[0]._forward_hooks)
            handle.remove()
            with torch.no_grad():
                out = model(x)
            return _result(seen["a"], out)
    """,
    # A no-op hook registered and removed for the judge; the real one written into the table.
    "hook written into the table beside a registered no-op": """
        def forward_hook_test():
            model, x = _model()
            seen = {}
            def hook(m, i, o):
                seen["a"] = o.detach().clone()
            handle = model[0].register_forward_hook(lambda m, i, o: None)
            model[0]._forward_hooks[10**6] = hook
            handle.remove()
            with torch.no_grad():
                out = model(x)
            return _result(seen["a"], out)
    """,
    # A global module hook does the work, a no-op hook on the layer is registered and removed.
    "global module hook beside a no-op": """
        from torch.nn.modules.module import register_module_forward_hook
        def forward_hook_test():
            model, x = _model()
            seen = {}
            def everywhere(m, i, o):
                if m is model[0]:
                    seen["a"] = o.detach().clone()
            g = register_module_forward_hook(everywhere)
            handle = model[0].register_forward_hook(lambda m, i, o: None)
            try:
                with torch.no_grad():
                    out = model(x)
            finally:
                handle.remove()
                g.remove()
            return _result(seen["a"], out)
    """,
    # The same reached as an attribute of the module object, left attached.
    "global module hook left attached": """
        import torch.nn.modules.module as modules
        def forward_hook_test():
            model, x = _model()
            seen = {}
            modules.register_module_forward_hook(
                lambda m, i, o: seen.setdefault("a", o.detach().clone()) if m is model[0] else None)
            handle = model[0].register_forward_hook(lambda m, i, o: None)
            with torch.no_grad():
                out = model(x)
            handle.remove()
            return _result(seen["a"], out)
    """,
    # The observers' wrappers are on nn.Module before a job (turned off until its guard is in force):
    # their switch, a sealed constant, reached and turned off around a pre-hook on the next layer,
    # which sees the first Linear's output and whose table no registration put a record on.
    "the observers' switch through the wrapper's code": """
        def forward_hook_test():
            model, x = _model()
            def consts(f, depth=0):  # through observe_hooks' own wrapper, when it is in place
                found = list(f.__code__.co_consts)
                for cell in f.__closure__ or ():
                    if type(cell.cell_contents) is type(consts) and depth < 3:
                        found += consts(cell.cell_contents, depth + 1)
                return found
            found = consts(nn.Module.register_forward_pre_hook) + consts(nn.Module.register_forward_hook)
            switches = [c for c in found if type(c) is list and c == [True]]
            return _pre_hook_on_the_next_layer(model, x, switches)
    """,
    # nn.Module's hook methods are read through slots (runner.testing.method_slots): the slot, a
    # constant of its descriptor's sealed getter, given a silent registration.
    "the hook method's slot through its getter's code": """
        from torch.utils.hooks import RemovableHandle
        def forward_hook_test():
            model, x = _model()
            def silent(module, hook, *args, **kwargs):
                handle = RemovableHandle(module._forward_pre_hooks)
                module._forward_pre_hooks[handle.id] = hook
                return handle
            getter = type(nn.Module.__dict__["register_forward_pre_hook"]).__dict__["__get__"]
            for c in getter.__code__.co_consts:
                if type(c) is list:
                    c[0] = silent
            return _pre_hook_on_the_next_layer(model, x)
    """,
    "the observers' switch through the garbage collector": """
        import gc
        def forward_hook_test():
            model, x = _model()
            wrapper = nn.Module.register_forward_pre_hook
            found = [o for o in gc.get_referents(*gc.get_referents(wrapper)) if type(o) is tuple]
            found += [o for o in gc.get_objects() if type(o) is list and o == [True]]
            items = [c for t in found for c in (t if type(t) is tuple else (t,))]
            switches = [c for c in items if type(c) is list and c == [True]]
            return _pre_hook_on_the_next_layer(model, x, switches)
    """,
}


@pytest.fixture(scope="module")
def hooks_problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / "forward-hook-activations")
    return problem, runner.compute_expectations(problem)


def _judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


def test_the_reference_passes(runner: Runner, hooks_problem: tuple[ProblemFiles, Expectations]) -> None:
    assert _judge(runner, hooks_problem, hooks_problem[0].solution).accepted


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_hidden_hook_fails_the_hook_case(
    runner: Runner, hooks_problem: tuple[ProblemFiles, Expectations], cheat: str
) -> None:
    result = _judge(runner, hooks_problem, PRELUDE + textwrap.dedent(CHEATS[cheat]))
    assert not result.accepted
    case = next(c for c in result.cases if c.name == HOOK_CASE)
    assert case.status != "passed", case.message
    assert MODIFIED in case.message or "global_forward_hook on every module" in case.message, case.message
