"""Forging a behaviour check from inside the learner's process, against the real sandbox.

Each attempt is either refused with a runtime error saying that modifying the judge is not
allowed, or (where the attempt cannot be seen) simply does not produce a pass. The forged
solutions below are the reference of ``backward-hook-gradients`` with ``handle.remove()``
taken out, plus the forging code: without forging they fail exactly one case.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from runner import jobs
from runner.engine import Runner, job_payload
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations
from runner.judging import observations
from runner.records import events
from runner.verdict import Verdict
from tests.runner.conftest import BANK, JudgeFn

MODIFIED = "modifying or inspecting the judge is not allowed"
HOOK_CASE = "uses_full_backward_hook_and_removes_it"


@pytest.fixture(scope="module")
def hook_problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / "backward-hook-gradients")
    return problem, runner.compute_expectations(problem)


def forged(prefix: str, problem: ProblemFiles) -> str:
    """The reference without its ``handle.remove()``, after ``prefix`` (the forging code)."""
    source = problem.solution.replace("        handle.remove()\n", "        pass\n")
    assert source != problem.solution
    return textwrap.dedent(prefix).lstrip() + "\n" + source


def judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> jobs.JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


def hook_case(result: jobs.JudgeResult) -> jobs.CaseResult:
    return next(c for c in result.cases if c.name == HOOK_CASE)


def test_the_reference_records_what_it_observed(hook_problem: tuple[ProblemFiles, Expectations]) -> None:
    observed = {c.name: c.observed for c in hook_problem[1].cases}
    assert observed[HOOK_CASE] == {
        "hooks": [[{"kind": "full_backward_hook", "module": "Linear", "removed": True}]]
    }
    assert observed["example"] is None


def test_the_reference_is_accepted(runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]) -> None:
    assert judge(runner, hook_problem, hook_problem[0].solution).verdict == Verdict.ACCEPTED


def test_a_hook_left_attached_fails_with_what_the_judge_saw(
    runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]
) -> None:
    result = judge(runner, hook_problem, forged("", hook_problem[0]))
    assert result.verdict == Verdict.WRONG_ANSWER
    case = hook_case(result)
    assert case.status == jobs.CASE_FAILED
    assert "full_backward_hook on Linear (not removed)" in case.message
    assert "expects full_backward_hook on Linear (removed)" in case.message


def test_patching_the_observer_classes_is_not_a_pass(
    runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]
) -> None:
    # The attack of issue #12: the in-process log now says "removed", the host's events do not.
    prefix = """
        import runner.testing as t
        t.HookLog.all_removed = lambda self: True
        t.HookLog.still_attached = lambda self: 0
    """
    result = judge(runner, hook_problem, forged(prefix, hook_problem[0]))
    assert result.verdict == Verdict.WRONG_ANSWER
    assert hook_case(result).status == jobs.CASE_FAILED


def test_replacing_observe_hooks_in_the_tests_globals_is_refused(
    runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]
) -> None:
    prefix = """
        import contextlib, sys
        class FakeLog:
            def summary(self):
                return {"registered": [{"kind": "full_backward_hook", "module": "Linear"}],
                        "all_removed": True, "still_attached": 0}
        @contextlib.contextmanager
        def observe_hooks():
            yield FakeLog()
        # Through the namespace as a dict: the module itself is read-only (frozen_modules).
        vars(sys.modules["torchdrill_tests"])["observe_hooks"] = observe_hooks
    """
    result = judge(runner, hook_problem, forged(prefix, hook_problem[0]))
    assert result.verdict == Verdict.RUNTIME_ERROR
    case = hook_case(result)
    assert case.status == jobs.CASE_ERROR
    assert MODIFIED in case.message.lower() and "hook observation" in case.message


def test_registering_behind_the_judges_back_is_not_a_pass(
    runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]
) -> None:
    # Writing the hook into the module's table directly: it works, and the judge sees no registration.
    prefix = """
        import torch.nn as nn
        def register(module, hook, *args, **kwargs):
            module._backward_hooks[12345] = hook
            module._is_full_backward_hook = True
            class Handle:
                def remove(self):
                    pass
            return Handle()
        nn.Module.register_full_backward_hook = register
    """
    result = judge(runner, hook_problem, forged(prefix, hook_problem[0]))
    assert result.verdict != Verdict.ACCEPTED
    # torch's classes are read-only to judged code (runner.testing.frozen_classes): the patch itself
    # fails; writing into the tables without it is test_hook_table_cheats' business.
    assert "immutable type 'Module'" in hook_case(result).message


def test_a_decoy_hook_table_is_refused(
    runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]
) -> None:
    prefix = """
        import collections, torch.nn as nn
        class Hidden(collections.OrderedDict):
            pass
        original_init = nn.Module.__init__
        def init(self, *args, **kwargs):
            original_init(self, *args, **kwargs)
            self._backward_hooks = Hidden()
        nn.Module.__init__ = init
    """
    result = judge(runner, hook_problem, forged(prefix, hook_problem[0]))
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "immutable type 'Module'" in hook_case(result).message  # nn.Module.__init__ cannot be replaced


def test_a_removal_that_does_not_remove_is_not_a_pass(
    runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]
) -> None:
    source = (
        textwrap.dedent("""
        from torch.utils.hooks import RemovableHandle
        RemovableHandle.remove = lambda self: None
    """)
        + hook_problem[0].solution
    )  # the reference itself, with remove() stubbed
    result = judge(runner, hook_problem, source)
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "(not removed)" in hook_case(result).message


def test_a_hook_put_back_after_remove_is_not_removed(
    runner: Runner, hook_problem: tuple[ProblemFiles, Expectations]
) -> None:
    # remove() really ran (a removal event), then the hook went back into the table: the look
    # into the module's own table at the end of the block says it is attached.
    source = hook_problem[0].solution.replace(
        "        handle.remove()\n",
        "        handle.remove()\n        model[2]._backward_hooks[0] = hook\n",
    )
    assert source != hook_problem[0].solution
    result = judge(runner, hook_problem, source)
    assert "full_backward_hook on Linear (not removed)" in hook_case(result).message
    # Where the problem's own tests registered a wrapper of the hook (a spy), the hook put back
    # is one no registration put in the table: reading the real table at the case's end says so.
    assert result.verdict == Verdict.RUNTIME_ERROR
    spied = next(c for c in result.cases if c.name == "hook_sees_module_input_gradients")
    assert "a hook was written into a hook table without registering it" in spied.message


# --- introspection the guard refuses (the probe's reference returns 0; so do these) ------------

REFUSED = {
    "code_of_a_sealed_wrapper": """
        import torch.nn as nn
        def probe():
            try:
                nn.Module.register_forward_hook.__code__.co_consts
            except RuntimeError:
                pass
            return 0
    """,
    "frames_of_a_traceback": """
        import torch.nn as nn
        def probe():
            try:
                nn.Linear(2, 2).register_forward_hook()  # raises inside the judge's wrapper
            except TypeError as exc:
                tb = exc.__traceback__
                while tb is not None:
                    try:
                        tb.tb_frame.f_code.co_consts
                    except RuntimeError:
                        pass
                    tb = tb.tb_next
            return 0
    """,
    "gc_objects": """
        import gc
        def probe():
            try:
                gc.get_objects()
            except RuntimeError:
                pass
            return 0
    """,
    "gc_referents": """
        import gc, torch.nn as nn
        def probe():
            gc.get_referents(nn.Module.register_forward_hook)
            return 0
    """,
    "settrace": """
        import sys
        def probe():
            sys.settrace(lambda *a: None)
            return 0
    """,
    "setprofile": """
        import sys
        def probe():
            sys.setprofile(lambda *a: None)
            return 0
    """,
    "ctypes": """
        import ctypes
        def probe():
            return ctypes.c_long.from_address(id(0)).value * 0
    """,
    "proc_self_mem": """
        def probe():
            with open("/proc/self/mem", "rb") as fh:
                return len(fh.read(0))
    """,
    "proc_mem_through_a_symlink": """
        import os
        def probe():
            os.symlink("/", "/tmp/root")
            return len(open("/tmp/root/proc/self/mem", "rb").read(0))
    """,
    "proc_mem_through_dev_fd": """
        def probe():
            return len(open("/dev/fd/../mem", "rb").read(0))
    """,
    "proc_mem_through_a_directory_descriptor": """
        import os
        def probe():
            root = os.open("/", os.O_RDONLY)
            return len(os.read(os.open("proc/self/mem", os.O_RDONLY, dir_fd=root), 0))
    """,
    "own_audit_hook": """
        import sys
        sys.addaudithook(lambda event, args: None)
        def probe():
            return 0
    """,
    "assigning_a_sealed_function": """
        import torch.nn as nn
        def probe():
            nn.Module.register_forward_hook.__code__ = probe.__code__
            return 0
    """,
    "current_frames": """
        import sys
        def probe():
            sys._current_frames()
            return 0
    """,
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_introspection_of_the_judge_is_a_runtime_error(judge_probe: JudgeFn, name: str) -> None:
    result = judge_probe(textwrap.dedent(REFUSED[name]).lstrip(), mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR, (name, result.message)
    assert MODIFIED in result.message.lower() or any(MODIFIED in c.message.lower() for c in result.cases)


def test_the_judges_wrappers_hold_nothing_reachable(judge_probe: JudgeFn) -> None:
    src = textwrap.dedent("""
        import torch.nn as nn
        from torch.utils.hooks import RemovableHandle
        def probe():
            out = []
            for f in (nn.Module.register_forward_hook, RemovableHandle.remove):
                out.append([f.__closure__, f.__defaults__, f.__kwdefaults__, sorted(f.__globals__)])
            return out
    """)
    result = judge_probe(src)
    assert result.verdict == Verdict.WRONG_ANSWER  # the probe's answer is 0: we only look at what it saw
    seen = result.cases[0].actual or ""
    assert seen.count("[None, None, None, ['__builtins__', '__name__']]") == 2, seen


def test_fake_events_on_the_result_channel_are_refused(judge_probe: JudgeFn) -> None:
    src = textwrap.dedent("""
        import json, os
        def probe():
            body = json.dumps('[0,"case_start","example"]')
            os.write(3, ('{"type":"event","body":' + body + ',"mac":"' + "0" * 64 + '"}\\n').encode())
            return 0
    """)
    result = judge_probe(src, mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "not written by the judge" in result.message


def test_the_jobs_key_is_nowhere_the_learners_code_can_reach(
    runner: Runner, probe: tuple[ProblemFiles, Expectations]
) -> None:
    # The spare had the key before the job (runner.testing.guard.PendingGuard); once the guard is in
    # force it must be in sealed constants only: not in any frame's locals up the stack, nor in
    # the attributes or items of what they hold. The decoy proves the search sees a local.
    src = textwrap.dedent("""
        import sys
        def candidates(value):
            found = [value]
            if isinstance(value, dict):
                found += list(value.values())
            try:
                found += list(vars(value).values())
            except TypeError:
                pass
            return found
        def probe():
            decoy = bytes(range(100, 132))
            keys = []
            frame = sys._getframe()
            while frame is not None:
                for value in list(frame.f_locals.values()):
                    for item in candidates(value):
                        if isinstance(item, (bytes, bytearray)) and len(item) == 32:
                            keys.append(bytes(item).hex())
                        elif isinstance(item, str) and len(item) == 64:
                            keys.append(item)
                frame = frame.f_back
            return keys
    """)
    problem, _ = probe
    raw = runner.run_payload(job_payload(src, problem.tests, problem.entry_point, None), problem.limits)
    found = next(r for r in raw.records if r.get("name") == "example")["value"]
    assert bytes(range(100, 132)).hex() in str(found)
    assert len(raw.integrity_key) == 32
    assert raw.integrity_key.hex() not in str(found)
    assert observations.verify(raw.records, raw.integrity_key).tampered == ""


def test_ordinary_pytorch_code_is_not_refused(judge_probe: JudgeFn) -> None:
    src = textwrap.dedent("""
        import collections, inspect, sys, traceback, typing
        import torch, torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        Point = collections.namedtuple("Point", "x y")  # reads its caller's frame
        class Typed(typing.NamedTuple):
            a: int
        def probe():
            model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
            seen = []
            handle = model[0].register_forward_hook(lambda m, i, o: seen.append(o.shape))
            data = TensorDataset(torch.randn(8, 3), torch.randn(8, 1))
            loader = DataLoader(data, batch_size=4, num_workers=0)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for x, y in loader:
                opt.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                opt.step()
            handle.remove()
            try:
                raise ValueError("mine")
            except ValueError:
                text = traceback.format_exc()  # the learner's own traceback
            frame = sys._getframe()
            assert frame.f_code.co_name == "probe" and inspect.stack()[0].function == "probe"
            assert len(seen) == 2 and "mine" in text and Point(1, 2).x == 1 and Typed(1).a == 1
            return 0
    """)
    result = judge_probe(src, mode="submit")
    assert result.verdict == Verdict.ACCEPTED, result.message


def test_a_learners_error_through_the_judges_wrapper_still_has_its_traceback(judge_probe: JudgeFn) -> None:
    src = textwrap.dedent("""
        import torch.nn as nn
        def probe():
            return nn.Linear(2, 2).register_forward_hook()
    """).lstrip()
    result = judge_probe(src)
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert MODIFIED not in result.message.lower()
    assert 'File "solution.py", line 3, in probe' in (result.cases[0].traceback or "")


# --- the host's side: events are verified before anything is judged on them --------------------


def _line(key: bytes, seq: int, kind: str, *data: str) -> dict[str, str]:
    """An event line as the guard writes it: its MAC is keyed BLAKE2b (32 bytes) of the body."""
    import hashlib

    body = json.dumps([seq, kind, *data], separators=(",", ":"))
    mac = hashlib.blake2b(body.encode(), key=key, digest_size=32).hexdigest()
    return {"type": "event", "body": body, "mac": mac}


def test_an_event_under_another_mac_or_key_is_tampering() -> None:
    import hashlib
    import hmac

    key = events.new_key()
    line = _line(key, 0, "case_start", "a")
    assert observations.verify([line], key).tampered == ""
    assert observations.verify([line], events.new_key()).tampered  # another job's key
    sha = hmac.new(key, line["body"].encode(), hashlib.sha256).hexdigest()  # right key, other MAC
    assert observations.verify([{**line, "mac": sha}], key).tampered


def test_replayed_or_dropped_events_are_tampering() -> None:
    key = events.new_key()
    good = [_line(key, 0, "case_start", "a"), _line(key, 1, "case_end", "a")]
    assert observations.verify(good, key).tampered == ""
    assert observations.verify([good[0], good[0], good[1]], key).tampered
    assert observations.verify([good[1]], key).tampered
    assert observations.verify(good, events.new_key()).tampered
