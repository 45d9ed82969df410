"""Torchdrill's runner: judges untrusted ``solution.py`` files in a sandbox.

It never imports the web app. Its public API::

    from runner import get_runner, load_problem_dir
    runner = get_runner()
    expectations = runner.compute_expectations(problem)
    result = runner.judge(runner.job_for(problem, expectations, code, "submit"))
"""

from runner.engine import ExpectationError, Runner, get_runner
from runner.format.problem import ProblemFiles, ProblemFormatError, build_problem, load_problem_dir
from runner.jobs import CaseExpectation, CaseResult, Expectations, Job, JudgeResult, Limits
from runner.sandbox.bwrap import SandboxUnavailable

__all__ = [
    "CaseExpectation",
    "CaseResult",
    "ExpectationError",
    "Expectations",
    "Job",
    "JudgeResult",
    "Limits",
    "ProblemFiles",
    "ProblemFormatError",
    "Runner",
    "SandboxUnavailable",
    "build_problem",
    "get_runner",
    "load_problem_dir",
]
