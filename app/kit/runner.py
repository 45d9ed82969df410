"""What the app needs from the judge (``runner/``), as a protocol so it can be swapped.

The real implementation is ``runner.get_runner()``: the app never reaches inside the runner
package beyond this surface and ``runner.jobs`` / ``runner.format.problem`` data types.
"""

from __future__ import annotations

from typing import Any, Protocol

from runner.format.problem import ProblemFiles
from runner.jobs import Expectations, Job, JudgeResult, Mode


class JudgeRunner(Protocol):
    def compute_expectations(self, problem: ProblemFiles) -> Expectations: ...

    def judge(self, job: Job) -> JudgeResult: ...

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job: ...

    def runtime_info(self) -> dict[str, str]: ...

    def ready(self) -> bool: ...


def default_runner() -> JudgeRunner:
    """The process-wide sandboxed runner (imported lazily: it starts a sandbox pool)."""
    from runner import get_runner

    runner: JudgeRunner = get_runner()
    return runner


def expectation_error_types() -> tuple[type[BaseException], ...]:
    """The runner's "reference solution failed" error, for importers to report per problem."""
    from runner import ExpectationError

    return (ExpectationError,)


def display_value(encoded: Any) -> str:
    """Readable text of an expected/actual value as the runner encoded it."""
    from runner.records.values import to_display

    return str(to_display(encoded))


def runtime_info(runner: JudgeRunner) -> dict[str, str]:
    """What the sandbox really runs (python, torch versions); empty if it cannot be asked now."""
    try:
        return dict(runner.runtime_info())
    except Exception:  # shown on pages: a sandbox hiccup must not break the page
        return {}
