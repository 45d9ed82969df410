"""The runner's Python API: ``Runner.judge(job)``, ``Runner.compute_expectations(problem)``.

One warm zygote serves every job of this process; ``max_concurrent`` bounds how many
sandboxed children run at once (more would only queue on the CPU). If the zygote dies
it is restarted on the next job.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
import types
from collections.abc import Callable
from typing import Any

from runner import jobs
from runner.format import custom
from runner.format.problem import ProblemFiles
from runner.format.rules import with_rule_sentences
from runner.jobs import (
    JUDGE_FORMAT,
    CaseExpectation,
    ExpectationError,
    Expectations,
    Job,
    JudgeResult,
    Limits,
)
from runner.judging import observations, source_policy
from runner.judging.results import build_result
from runner.sandbox import compiled
from runner.sandbox.channel import RawRun
from runner.sandbox.host import Sandbox
from runner.sandbox.spares import PoolState
from runner.sandbox.watch import WatchFactory

log = logging.getLogger("runner")


def default_slots() -> int:
    """How many sandboxed jobs run at once by default: ``TORCHDRILL_RUNNER_SLOTS``, else one per
    CPU. A job is CPU-bound, so more would only share the CPUs (each job slower, the pages it
    touches evicted from the caches by the others', docs/benchmarks.md's thirteenth pass)."""
    raw = os.environ.get("TORCHDRILL_RUNNER_SLOTS", "").strip()
    if raw:
        try:
            slots = int(raw)
        except ValueError:
            raise ValueError(f"TORCHDRILL_RUNNER_SLOTS must be a whole number, not {raw!r}") from None
        if slots < 1:
            raise ValueError(f"TORCHDRILL_RUNNER_SLOTS must be at least 1, not {slots}")
        return slots
    return max(1, os.cpu_count() or 1)


def job_payload(
    job_code: str,
    tests_source: str,
    entry_point: str,
    cases: list[str] | None,
    tests_code: types.CodeType | None = None,
    watch_ops_every_case: bool = True,
) -> dict[str, Any]:
    """What the sandbox's harness gets for one job: the code, ``tests.py`` (and its code object,
    compiled once on the host), which cases to run and whether every case begins watched at the
    function level (``Expectations.checks_operations``; the reference's own run always is). No
    integrity key: the spare has its own from the host (``RawRun.integrity_key``)."""
    return {
        "code": job_code,
        "tests_source": tests_source,
        "entry_point": entry_point,
        "cases": cases,
        "watch_ops_every_case": watch_ops_every_case,
    } | ({"tests_code": tests_code} if tests_code is not None else {})


def _compiled(tests_source: str) -> types.CodeType | None:
    """A problem's ``tests.py`` compiled once per version, here instead of in every job
    (``runner.sandbox.compiled``); None when it does not compile: the sandbox then reports the error."""
    try:
        return compiled.compiled_tests(tests_source)
    except Exception:  # SyntaxError, ValueError, RecursionError ...: the instructor's file is broken
        return None


class Runner:
    def __init__(self, max_concurrent: int | None = None, source_policy: bool = True) -> None:
        """``source_policy=False`` judges code the policy would refuse: only for the suite's
        attacks on the layers below it (the sandbox, the guard), never for a learner's code."""
        self.source_policy = source_policy
        self._watch: WatchFactory | None = None  # see watch_jobs
        self.max_concurrent = max_concurrent or default_slots()
        self._slots = threading.BoundedSemaphore(self.max_concurrent)
        self._lock = threading.Lock()
        self._sandbox: Sandbox | None = None
        self._busy = 0
        self.start()

    def start(self) -> None:
        with self._lock:
            if self._sandbox is None or not self._sandbox.alive():
                if self._sandbox is not None:
                    log.warning("zygote died; starting a new one")
                    self._sandbox.close()
                self._sandbox = Sandbox(watch=self._watch)

    def close(self) -> None:
        with self._lock:
            if self._sandbox is not None:
                self._sandbox.close()
                self._sandbox = None

    def watch_jobs(self, watch: WatchFactory | None) -> None:
        """Tell each job's stages from now on to a :class:`runner.sandbox.watch.JobWatch` that
        ``watch`` makes for it (None: to none, as the product runs). A hook for tools outside the
        product (``bench/``) and tests; it stays across a restarted zygote."""
        with self._lock:
            self._watch = watch
            if self._sandbox is not None:
                self._sandbox.watch = watch

    def runtime_info(self) -> dict[str, str]:
        self.start()
        assert self._sandbox is not None
        return dict(self._sandbox.info)

    def stats(self) -> dict[str, int]:
        """Pool figures for monitoring: job slots, busy slots, warm zygotes, ready spares."""
        spares = self._sandbox.spares_ready() if self._sandbox is not None else 0
        return {
            "slots": self.max_concurrent,
            "busy": self._busy,
            "warm_zygotes": int(self.ready()),
            "spares": spares,
        }

    def pool_state(self) -> PoolState | None:
        """The sandbox's pool now (spares wanted, ready, made; jobs in flight), or None before it starts."""
        sandbox = self._sandbox
        return sandbox.pool_state() if sandbox is not None else None

    def sandbox_pid(self) -> int | None:
        """The pid at the root of the warm pool's processes (zygote, spares, running jobs), or None
        before the sandbox starts: where ``/proc`` tells their memory and CPU."""
        sandbox = self._sandbox
        return sandbox.pid() if sandbox is not None else None

    def ready(self) -> bool:
        return self._sandbox is not None and self._sandbox.alive()

    def run_payload(
        self, payload: dict[str, Any], limits: Limits, cleared: Callable[[], bool] | None = None
    ) -> RawRun:
        """Run one :func:`job_payload` in the sandbox, in a job slot: what came out, not judged.
        ``cleared``: a check of the code that must pass before any of it runs (``Sandbox.run``)."""
        with self._slots:
            self.start()
            sandbox = self._sandbox
            assert sandbox is not None
            self._busy += 1
            try:
                return sandbox.run(payload, limits, cleared)
            finally:
                self._busy -= 1

    def judge(self, job: Job) -> JudgeResult:
        """Judge a learner's code. Never raises for anything the learner did."""
        started = time.perf_counter()
        selected = [c.name for c in job.expectations.select(job.mode)]
        try:
            if job.custom is None:
                result = self._judge_job(job, selected)
            # Checked before anything runs, on every route (runner.judging.source_policy).
            elif self.source_policy and (refusal := source_policy.check(job.code, job.source_allow)):
                result = source_policy.refused_result(refusal, _judged_cases(job))
            else:
                selected = [custom.CASE_NAME]
                result = self._judge_custom(job, job.custom)
        except Exception as exc:  # the platform's fault, reported as such
            log.exception("judging job %s failed", job.job_id)
            result = JudgeResult.internal_error(
                f"The judge failed to run this submission (not your fault): {exc}",
                "runner_exception",
                total=len(selected),
            )
        result.time_ms = round((time.perf_counter() - started) * 1000, 3)
        if self._sandbox is not None:
            result.runtime = dict(self._sandbox.info)
        return result

    def _judge_job(self, job: Job, selected: list[str]) -> JudgeResult:
        """One sandbox job over the problem's cases. The source policy is checked on this thread
        while the job's spare gets ready (its lock-down, the problem's tests, the guard), and the
        spare imports the code only once it has passed (``Sandbox.run``'s ``cleared``): nothing of a
        refused solution runs, and the check overlaps the spare's set-up. Where the run fails before
        the check (no sandbox), it is checked then: a refusal is still the verdict."""
        refusals: list[source_policy.Refusal] = []
        checked: list[bool] = []

        def cleared() -> bool:
            checked.append(True)
            refusal = source_policy.check(job.code, job.source_allow)
            if refusal is not None:
                refusals.append(refusal)
            return refusal is None

        tests_code = _compiled(job.tests_source)
        payload = job_payload(
            job.code,
            job.tests_source,
            job.entry_point,
            selected,
            tests_code,
            watch_ops_every_case=job.expectations.checks_operations(),
        )
        try:
            raw = self.run_payload(payload, job.limits, cleared if self.source_policy else None)
        except Exception:
            if not self.source_policy or checked or cleared():
                raise
        if refusals:
            return source_policy.refused_result(refusals[0], _judged_cases(job))
        return build_result(raw, job.expectations, job.mode, job.limits, raw.integrity_key)

    def _judge_custom(self, job: Job, given: custom.CustomInput) -> JudgeResult:
        """Two sandbox jobs: the reference on the learner's arguments, then the learner's code, both
        inside the problem's problem-wide op rules (``runner.format.custom``)."""
        wide = custom.problem_wide_rules(job.expectations)
        tests = custom.tests_source(job.entry_point, given.arguments, job.tests_source if wide else "")
        try:
            expectations = self._expectations(given.reference, tests, job.entry_point, job.limits)
        except ExpectationError as exc:
            if str(exc).startswith(("sandbox:", "tests.py:")):  # the platform failed, not the input
                return JudgeResult.internal_error(
                    f"The judge could not run the reference on your input (not your fault): {exc}",
                    "custom_reference",
                    total=1,
                )
            return custom.reference_refused(str(exc))
        rtol, atol = given.rtol, given.atol
        if rtol is not None and atol is not None:  # the problem's tolerances, as Run judges
            cases = tuple(dataclasses.replace(c, rtol=rtol, atol=atol) for c in expectations.cases)
            expectations = dataclasses.replace(expectations, cases=cases)
        if wide:
            expectations = custom.with_problem_ops(expectations, job.expectations)
        raw = self.run_payload(job_payload(job.code, tests, job.entry_point, [custom.CASE_NAME]), job.limits)
        result = build_result(
            raw, expectations, "run", job.limits, raw.integrity_key, custom.rule_sentences(job.expectations)
        )
        return custom.with_note(result, custom.case_bound_rules(job.expectations))

    def compute_expectations(self, problem: ProblemFiles) -> Expectations:
        """Run the reference solution in the sandbox; its values become the expected ones."""
        expectations = self._expectations(
            problem.solution, problem.tests, problem.entry_point, problem.limits, compile_tests=True
        )
        if problem.alternatives and any(c.observed and "ops_used" in c.observed for c in expectations.cases):
            expectations = self._with_alternatives(problem, expectations)
        return with_rule_sentences(expectations, problem.statement)

    def _with_alternatives(self, problem: ProblemFiles, expectations: Expectations) -> Expectations:
        """The expectations with the operations each accepted alternative (``alternatives/``)
        dispatched in an ``allow_ops`` block added to what that block allows. Only problems that
        declare allow_ops and list alternatives run them (once per computation, not per verdict)."""
        observed = {c.name: c.observed for c in expectations.cases}
        for name, source in sorted(problem.alternatives.items()):
            try:
                alternative = self._expectations(
                    source, problem.tests, problem.entry_point, problem.limits, compile_tests=True
                )
            except ExpectationError as exc:
                raise ExpectationError(f"alternatives/{name}: {str(exc).partition(': ')[2] or exc}") from None
            for case in alternative.cases:
                observed[case.name] = observations.with_alternative_ops(
                    observed.get(case.name), case.observed
                )
        cases = tuple(dataclasses.replace(c, observed=observed[c.name]) for c in expectations.cases)
        return dataclasses.replace(expectations, cases=cases)

    def _expectations(
        self, solution: str, tests: str, entry_point: str, limits: Limits, compile_tests: bool = False
    ) -> Expectations:
        # Custom runs' generated tests (runner.format.custom) are compiled in the sandbox: they are not
        # problem versions, and caching them would only hold learners' inputs in memory.
        tests_code = _compiled(tests) if compile_tests else None
        raw = self.run_payload(job_payload(solution, tests, entry_point, None, tests_code), limits)
        for kind in ("sandbox_error", "tests_error", "compile_error", "import_error"):
            record = next((r for r in raw.records if r.get("type") == kind), None)
            if record:
                where = {"tests_error": "tests.py", "sandbox_error": "sandbox"}.get(kind, "solution.py")
                raise ExpectationError(f"{where}: {record.get('message', kind)}")
        if raw.timed_out or raw.oom_killed or raw.output_exceeded:
            raise ExpectationError(
                "solution.py: the reference hit a limit "
                f"(timed out={raw.timed_out}, out of memory={raw.oom_killed}, output={raw.output_exceeded})"
            )
        declared = next((r for r in raw.records if r.get("type") == "cases"), None)
        if declared is None or not declared.get("cases"):
            raise ExpectationError("tests.py: no test cases are declared (use @case from runner.testing)")
        reports = {r["name"]: r for r in raw.records if r.get("type") == "case"}
        events = observations.verify(raw.records, raw.integrity_key)
        if events.tampered or events.refused:
            why = events.tampered or "; ".join(events.refused)
            raise ExpectationError(f"solution.py: the guard refused the reference's run: {why}")
        cases: list[CaseExpectation] = []
        for spec in declared["cases"]:
            report = reports.get(spec["name"])
            if report is None:
                raise ExpectationError(f"tests.py: case {spec['name']} did not finish against the reference")
            if report.get("status") != "ok":
                raise ExpectationError(
                    f"solution.py: the reference fails case {spec['name']}: {report.get('message', '')}"
                )
            observed = _reference_observations(spec["name"], events)
            cases.append(
                CaseExpectation(
                    name=spec["name"],
                    public=bool(spec["public"]),
                    rtol=float(spec["rtol"]),
                    atol=float(spec["atol"]),
                    value=report["value"],
                    observed=observed,
                    rule=str(spec.get("rule") or ""),
                    rule_by_value=spec.get("rule_by_value") is True,
                )
            )
        if not any(c.public for c in cases):
            raise ExpectationError(
                "tests.py: at least one case must be public (@case(public=True)) as the example"
            )
        return Expectations(cases=tuple(cases), judge_format=JUDGE_FORMAT)

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: jobs.Mode, job_id: str = ""
    ) -> Job:
        return problem.job(expectations, code, mode, job_id)


def _judged_cases(job: Job) -> tuple[CaseExpectation, ...]:
    """The cases a job's verdict lists: its mode's, or the one case of a custom run."""
    if job.custom is not None:
        return (CaseExpectation(name=custom.CASE_NAME, public=True, rtol=0.0, atol=0.0, value=None),)
    return job.expectations.select(job.mode)


def _reference_observations(name: str, events: observations.RunEvents) -> dict[str, Any] | None:
    """What the reference's run observed in a case; refused if it breaks one of its own checks."""
    case = events.cases.get(name)
    if case is None:
        return None  # no guard in this sandbox (not CPython 3.11): nothing was observed
    if not case.complete:
        raise ExpectationError(f"tests.py: case {name} left no complete record of its observations")
    finding = observations.judge_case(None, case)
    if finding is not None:
        raise ExpectationError(f"solution.py: the reference fails a check of case {name}: {finding.message}")
    return observations.summary(case) or None


_runner: Runner | None = None
_runner_lock = threading.Lock()


def get_runner() -> Runner:
    """The process-wide runner (started on first use)."""
    global _runner
    with _runner_lock:
        if _runner is None:
            _runner = Runner()
        return _runner
