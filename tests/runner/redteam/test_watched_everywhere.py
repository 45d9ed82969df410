"""Behaving well only when watched stops paying: every case is observed the same way, with or
without a check in it (the sealed modes are on the stacks for the whole case, inert where the case
checks nothing), so what a solution can see of the judge through public PyTorch is the same in
every case. In the real sandbox, on the ops fixture (one case without a check, three with one).

The probe solutions below answer *wrongly* when they believe themselves unwatched (plain route:
``torch.overrides.has_torch_function``; sneakier: its unary and variadic forms, which read the
same mode stack). Before every case was observed, the
unchecked ``example`` case failed for each of them; now no case looks unwatched, so each answers
correctly everywhere — and the mirror image, wrong only when watched, fails every case."""

from __future__ import annotations

import pytest

from runner.engine import Runner, job_payload
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations
from runner.judging import observations
from tests.runner.conftest import FIXTURES

WATCHED = {
    "has_torch_function": "torch.overrides.has_torch_function((x,))",
    "unary": "torch.overrides.has_torch_function_unary(x)",
    "variadic": "torch.overrides.has_torch_function_variadic(x, x)",
}

PROBE = """
import torch


def _watched(x):
    return bool({probe})


def layer_norm(x, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    out = (x - mean) / torch.sqrt(var + eps)
    return out if {good_when} else out + 1.0


def segment_sum(values, index, n):
    out = torch.zeros(n, dtype=values.dtype)
    out = out.scatter_add_(0, index, values)
    return out if {good_when} else out + 1.0


def pairwise_sq(p):
    d = (p[:, None, :] - p[None, :, :]).pow(2).sum(-1)
    return d if {good_when} else d + 1.0
"""


@pytest.fixture(scope="module")
def ops_problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(FIXTURES / "ops")
    return problem, runner.compute_expectations(problem)


def _judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> dict[str, str]:
    files, expectations = problem
    result = runner.judge(runner.job_for(files, expectations, code, "submit"))
    return {c.name: c.status for c in result.cases}


@pytest.mark.parametrize("route", sorted(WATCHED))
def test_a_solution_cannot_find_an_unwatched_case(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    # Correct only when it believes itself watched: every case must look watched.
    code = PROBE.format(probe=WATCHED[route], good_when="_watched(torch.zeros(1))")
    statuses = _judge(runner, ops_problem, code)
    assert statuses and set(statuses.values()) == {"passed"}, statuses


@pytest.mark.parametrize("route", sorted(WATCHED))
def test_behaving_badly_when_watched_fails_every_case(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    # The mirror image, so the check above can fail: wrong only when watched is wrong everywhere.
    code = PROBE.format(probe=WATCHED[route], good_when="not _watched(torch.zeros(1))")
    statuses = _judge(runner, ops_problem, code)
    assert statuses and "passed" not in set(statuses.values()), statuses


# --- a problem whose tests check no operation ------------------------------------------------------
# Its jobs put the function mode on in no case (nothing at that level to evade; on every torch call it
# cost most of what the guard adds to such a verdict): every case still looks the same as every other.

ADD_ONE_PROBE = """
import torch


def _watched(x):
    return bool({probe})


def add_one(x):
    out = torch.as_tensor(x) + 1
    return out if {good_when} else out + 1
"""


@pytest.fixture(scope="module")
def unchecked_problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(FIXTURES / "add-one")
    return problem, runner.compute_expectations(problem)


def test_the_watch_follows_what_the_reference_run_checked(
    ops_problem: tuple[ProblemFiles, Expectations], unchecked_problem: tuple[ProblemFiles, Expectations]
) -> None:
    assert ops_problem[1].checks_operations()
    assert not unchecked_problem[1].checks_operations()


@pytest.mark.parametrize("route", sorted(WATCHED))
def test_a_problem_that_checks_no_operation_looks_the_same_in_every_case(
    runner: Runner, unchecked_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    # Right only when watched, then right only when unwatched: each probe gets one status in every
    # case, and the two probes opposite ones (so the probe does read something).
    when_watched = _judge(
        runner, unchecked_problem, ADD_ONE_PROBE.format(probe=WATCHED[route], good_when="_watched(out)")
    )
    when_unwatched = _judge(
        runner, unchecked_problem, ADD_ONE_PROBE.format(probe=WATCHED[route], good_when="not _watched(out)")
    )
    assert len(when_watched) == 2 and len(set(when_watched.values())) == 1, when_watched
    assert len(when_unwatched) == 2 and len(set(when_unwatched.values())) == 1, when_unwatched
    assert set(when_watched.values()) != set(when_unwatched.values()), (when_watched, when_unwatched)


# The harness's guard, reached through its frame at import (the runner judges without the source
# policy here, which refuses `sys` outright), and its watch of every case switched off before the
# probe behaves well only when watched. Not finding it is an import error: the test then fails.
SWITCH_THE_WATCH_OFF = """
import sys


def _switch_off():
    frame = sys._getframe(1)
    while frame is not None:
        judge = frame.f_locals.get("judge")
        if judge is not None and hasattr(judge, "ops"):
            try:
                judge.ops.watch_every_case(False)
            except Exception:
                pass
            return
        frame = frame.f_back
    raise LookupError("the harness's guard was not found")


_switch_off()
"""


def test_the_watch_of_every_case_cannot_be_switched_off_from_solution_py(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    files, expectations = ops_problem
    code = SWITCH_THE_WATCH_OFF + PROBE.format(
        probe=WATCHED["has_torch_function"], good_when="_watched(torch.zeros(1))"
    )
    result = runner.judge(runner.job_for(files, expectations, code, "submit"))
    assert result.verdict != "internal_error" and not result.accepted, result
    failed = {c.name: c.message for c in result.cases if c.status != "passed"}
    assert "example" in failed and "set again" in failed["example"], failed


def _checked_cases(
    runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str, every_case: bool
) -> dict[str, tuple[dict[str, object], str]]:
    """Each case's observations and what the host finds against the reference's, with the job's
    watch of every case on or off (off: the function mode goes on only as a check starts)."""
    files, expectations = problem
    payload = job_payload(code, files.tests, files.entry_point, None, watch_ops_every_case=every_case)
    raw = runner.run_payload(payload, files.limits)
    events = observations.verify(raw.records, raw.integrity_key)
    reference = {c.name: c.observed for c in expectations.cases}
    found = {}
    for name, case in events.cases.items():
        finding = observations.judge_case(reference[name], case)
        found[name] = (observations.summary(case), finding.message if finding else "")
    return found


def test_checks_hold_the_same_when_no_case_begins_watched(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    # A problem whose tests check operations only on a path the reference did not take gets jobs
    # with the watch off: the checks they reach must observe exactly what they observe with it on.
    files = ops_problem[0]
    on = _checked_cases(runner, ops_problem, files.solution, every_case=True)
    off = _checked_cases(runner, ops_problem, files.solution, every_case=False)
    assert len(off) == 4 and off == on, (on, off)
    assert all(message == "" for _, message in off.values()), off
    builtin = (FIXTURES / "ops" / "mutants" / "calls_f_layer_norm.py").read_text()
    broken = _checked_cases(runner, ops_problem, builtin, every_case=False)
    assert "layer_norm" in broken["no_builtin_layer_norm"][1], broken
