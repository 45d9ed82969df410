"""From what came out of the sandbox to a verdict, on the host, with the trusted expectations.

Only values cross the boundary; pass/fail is decided here. A case the sandbox did not
report is never a pass, so exiting early, killing the harness or printing fake records
can only fail.
"""

from __future__ import annotations

from typing import Any

from runner import jobs
from runner.jobs import CaseExpectation, CaseResult, Expectations, JudgeResult, Limits
from runner.judging import checks, compare, host_compare, observations
from runner.judging.failures import TITLES, VALUE_KINDS, Failure, as_rule
from runner.records.check_value import unwrap
from runner.records.events import MODIFIED
from runner.records.text import clean
from runner.sandbox.channel import RawRun
from runner.verdict import Verdict

STDOUT_LIMIT = 4000
MESSAGE_LIMIT = 2000
TAMPERED = (
    "Runtime error: your program wrote to the judge's result channel ({detail}). Print with print() "
    "or write to sys.stdout/sys.stderr; the judge's own channel is not for solutions."
)
SIGXCPU, SIGKILL = 24, 9
_LIMIT_KINDS: dict[str, str] = {
    Verdict.OUTPUT_LIMIT_EXCEEDED: "output_limit",
    Verdict.MEMORY_LIMIT_EXCEEDED: "memory_limit",
    Verdict.TIME_LIMIT_EXCEEDED: "time_limit",
}


def _case_reports(raw: RawRun) -> dict[str, dict[str, Any]]:
    """The first report per case name (anything later is ignored)."""
    reports: dict[str, dict[str, Any]] = {}
    for record in raw.records:
        if record.get("type") == "case" and isinstance(record.get("name"), str):
            reports.setdefault(record["name"], record)
    return reports


def _limit_message(raw: RawRun, limits: Limits) -> tuple[str, str] | None:
    if raw.output_exceeded:
        return Verdict.OUTPUT_LIMIT_EXCEEDED, (
            f"Output limit exceeded: the program printed more than {limits.max_output_kb} KB."
        )
    if raw.oom_killed:
        return Verdict.MEMORY_LIMIT_EXCEEDED, (
            f"Memory limit exceeded: the program used more than {limits.memory_mb} MB of resident memory."
        )
    if raw.timed_out:
        return Verdict.TIME_LIMIT_EXCEEDED, (
            f"Time limit exceeded: the run took longer than the time limit of {limits.time_s:g} s "
            "for the whole run (wall time)."
        )
    cpu_limit_s = int(limits.time_s) + 1  # RLIMIT_CPU set by the zygote: SIGXCPU there, SIGKILL 1 s later
    cpu_signal = raw.exit_status in (-SIGXCPU, 128 + SIGXCPU)
    cpu_killed = raw.exit_status in (-SIGKILL, 128 + SIGKILL) and raw.cpu_ms >= cpu_limit_s * 1000 * 0.95
    if cpu_signal or cpu_killed:
        return Verdict.TIME_LIMIT_EXCEEDED, (
            f"Time limit exceeded: the program used more than {cpu_limit_s} s of CPU time (all its "
            f"threads together; the wall-time limit is {limits.time_s:g} s)."
        )
    return None


def _where(report: dict[str, Any]) -> dict[str, Any]:
    """Line, column and the learner's traceback from a record, each only if it is well formed."""
    line, column = report.get("line"), report.get("column")
    return {
        "line": line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else None,
        "column": column if isinstance(column, int) and not isinstance(column, bool) and column > 0 else None,
        "traceback": clean(report["traceback"], 4000) if isinstance(report.get("traceback"), str) else "",
    }


def _is_memory_error(report: dict[str, Any]) -> bool:
    message = str(report.get("message", ""))
    return report.get("exception") == "MemoryError" or "can't allocate memory" in message


def _apply_observations(
    cases: list[CaseResult],
    failures: list[Failure | None],
    selected: tuple[CaseExpectation, ...],
    events: observations.RunEvents,
) -> dict[str, str]:
    """Turn a case that ran into an error (the judge was modified) or a failure (a check of how the
    code works failed) from what the host saw in its events (``runner.judging.observations``).
    Returns, per case, the rule a problem-wide op rule's failure breaks (not the case's own)."""
    rules: dict[str, str] = {}
    for i, (case, exp) in enumerate(zip(cases, selected, strict=True)):
        if case.status not in (jobs.CASE_PASSED, jobs.CASE_FAILED):
            continue
        finding = observations.judge_case(exp.observed, events.cases.get(exp.name))
        if finding is None:
            continue
        case.status = jobs.CASE_ERROR if finding.status == "error" else jobs.CASE_FAILED
        failures[i] = Failure(finding.kind, finding.message)
        if finding.status != "error" and finding.rule:
            rules[case.name] = finding.rule
    return rules


def _rule_broke(exp: CaseExpectation, failure: Failure, values_right_elsewhere: bool) -> bool:
    """Whether a failed case of a rule failed on the rule rather than on its returned values.

    It did when a check of how the code works failed (observed operations or hooks, a check
    value's own property); when it returns a plain value and a count, flag, name or structure in
    it differs (the rule's evidence: how many times an input was written, which modes the model
    saw); or when its values differ while every case without a rule passes, so the difference
    comes from what the rule's case exercises (extreme logits for a stability rule); or the case
    declares its values the rule's evidence (``@case(rule_by_value=True)``). Values that are wrong
    in the other cases too are the values' failure, whatever the case is named."""
    if failure.kind not in VALUE_KINDS or exp.rule_by_value:
        return True
    if unwrap(exp.value) is None and failure.discrete:
        return True
    return values_right_elsewhere


def rule_message(rule: str, sentence: str, message: str) -> str:
    """A failed case's message when the case enforces a statement's rule: the rule, then what was seen."""
    return (
        Failure("rule", message, rule=rule, sentence=sentence).message()
        if message
        else (f"Breaks rule {rule}" + (f" ({sentence})" if sentence else ""))
    )


def _name_failures(
    cases: list[CaseResult],
    failures: list[Failure | None],
    selected: tuple[CaseExpectation, ...],
    by_rule: dict[str, str] | None = None,
    sentences: dict[str, str] | None = None,
) -> list[str]:
    """Give each case that did not pass its failure, named by the case's rule when the rule broke
    (or by the problem-wide op rule that failed it: ``by_rule``, case -> rule id); the rules broken,
    once each, in case order, for the verdict's message."""
    broken: list[str] = []
    if sentences is None:
        sentences = {exp.rule: exp.rule_sentence for exp in selected if exp.rule}
    values_right_elsewhere = all(
        c.status == jobs.CASE_PASSED for c, e in zip(cases, selected, strict=True) if not e.rule
    )
    for case, found, exp in zip(cases, failures, selected, strict=True):
        if case.status == jobs.CASE_PASSED:
            continue
        if found is None:
            found = Failure("not_run" if case.status == jobs.CASE_NOT_RUN else "exception", case.message)
        wide = (by_rule or {}).get(case.name, "")
        if case.status == jobs.CASE_FAILED and wide:  # a problem-wide op rule failed this case
            found = as_rule(found, wide, sentences.get(wide, ""))
            named = rule_message(wide, sentences.get(wide, ""), "") + "."
            if named not in broken:
                broken.append(named)
        elif case.status == jobs.CASE_FAILED and exp.rule and _rule_broke(exp, found, values_right_elsewhere):
            found = as_rule(found, exp.rule, exp.rule_sentence)
            named = rule_message(exp.rule, exp.rule_sentence, "") + "."
            if named not in broken:
                broken.append(named)
        elif exp.rule and found.kind == "exception":  # raised while its rule was being checked
            found.rule = exp.rule
        case.failure = found.to_dict()
        case.message = clean(found.message(), MESSAGE_LIMIT)
    return broken


def build_result(
    raw: RawRun,
    expectations: Expectations,
    mode: jobs.Mode,
    limits: Limits,
    key: bytes | None = None,
    rule_sentences: dict[str, str] | None = None,
) -> JudgeResult:
    """``key`` is the job's event key (``runner.judging.observations``); without it no event is trusted.
    ``rule_sentences`` (rule id -> sentence): where a problem-wide op rule's sentence comes from
    when no case judged here carries it (custom input's one case); by default, the problem's cases'."""
    selected = expectations.select(mode)
    total = len(selected)

    def result(verdict: str, cases: list[CaseResult], message: str = "", cause: str = "") -> JudgeResult:
        passed = sum(1 for c in cases if c.status == jobs.CASE_PASSED)
        return JudgeResult(
            verdict=verdict,
            passed=passed,
            total=total,
            cases=cases,
            message=message,
            time_ms=raw.wall_ms,
            cause=cause,
        )

    def all_cases(status: str, message: str, where: dict[str, Any] | None = None) -> list[CaseResult]:
        kind = "not_run" if status == jobs.CASE_NOT_RUN else "exception"
        failure = {"kind": kind, "title": TITLES[kind]}
        return [
            CaseResult(
                name=c.name, public=c.public, status=status, message=message, failure=failure, **(where or {})
            )
            for c in selected
        ]

    sandbox_error = raw.first("sandbox_error")
    if sandbox_error or (raw.first("start") is None and not (raw.timed_out or raw.oom_killed)):
        detail = sandbox_error.get("message", "") if sandbox_error else "the harness did not start"
        return result(
            Verdict.INTERNAL_ERROR,
            all_cases(jobs.CASE_NOT_RUN, "Not run."),
            f"The judge failed to run this submission (not your fault): {detail}",
            "sandbox",
        )
    tests_error = raw.first("tests_error")
    if tests_error:
        return result(
            Verdict.INTERNAL_ERROR,
            all_cases(jobs.CASE_NOT_RUN, "Not run."),
            "The problem's tests failed to load (not your fault).",
            "tests",
        )
    compile_error = raw.first("compile_error")
    if compile_error:
        msg = clean(str(compile_error.get("message", "solution.py does not parse")), MESSAGE_LIMIT)
        return result(
            Verdict.COMPILE_ERROR,
            all_cases(jobs.CASE_NOT_RUN, "Not run: solution.py does not parse.", _where(compile_error)),
            msg,
        )
    if raw.channel_corrupted:
        detail = clean(raw.channel_corrupted, 200)
        return result(
            Verdict.RUNTIME_ERROR, all_cases(jobs.CASE_NOT_RUN, "Not judged."), TAMPERED.format(detail=detail)
        )
    events = observations.verify(raw.records, key) if key is not None else observations.RunEvents()
    if events.tampered or events.refused:
        why = events.tampered or "; ".join(events.refused)
        message = clean(f"{MODIFIED} ({why}).", MESSAGE_LIMIT)
        return result(Verdict.RUNTIME_ERROR, all_cases(jobs.CASE_ERROR, message), message)
    import_error = raw.first("import_error")
    if import_error:
        msg = clean(str(import_error.get("message", "importing solution.py failed")), MESSAGE_LIMIT)
        verdict = Verdict.MEMORY_LIMIT_EXCEEDED if _is_memory_error(import_error) else Verdict.RUNTIME_ERROR
        return result(verdict, all_cases(jobs.CASE_ERROR, msg, _where(import_error)), msg)

    reports = _case_reports(raw)
    limit = _limit_message(raw, limits)
    cases: list[CaseResult] = []
    failures: list[Failure | None] = []
    memory_error = False
    for exp in selected:
        report = reports.get(exp.name)
        case = CaseResult(name=exp.name, public=exp.public, status=jobs.CASE_NOT_RUN)
        if exp.public:
            case.expected = clean(checks.display(exp.value))
        if report is None:
            if limit:
                failures.append(Failure(_LIMIT_KINDS[limit[0]], limit[1].partition(": ")[2]))
            else:
                failures.append(Failure("not_run", "the program ended before this case finished"))
            cases.append(case)
            continue
        case.time_ms = host_compare.milliseconds(report.get("time_ms"))
        if exp.public and isinstance(report.get("stdout"), str):
            case.stdout = clean(report["stdout"], STDOUT_LIMIT)
        found: Failure | None = None
        if report.get("status") == "error":
            case.status = jobs.CASE_ERROR
            memory_error = memory_error or _is_memory_error(report)
            msg = clean(str(report.get("message", "the case raised an exception")), MESSAGE_LIMIT)
            found = Failure("exception", msg)
            where = _where(report)
            case.line, case.traceback = where["line"], where["traceback"]
        elif report.get("status") == "ok" and "value" in report:
            found = host_compare.failure(exp.value, report["value"], exp.rtol, exp.atol, exp.public)
            if exp.public:
                case.actual = clean(host_compare.display(report["value"]))
            if found is None:
                case.status = jobs.CASE_PASSED
            else:  # a value that cannot be compared is the learner's error, never the platform's
                case.status = jobs.CASE_ERROR if found.kind == "refused" else jobs.CASE_FAILED
                if exp.rule and found.kind in VALUE_KINDS and unwrap(exp.value) is None:
                    found.discrete = compare.discrete_difference(exp.value, report["value"])
        else:
            found = Failure("no_value", "the case produced no usable value")
        cases.append(case)
        failures.append(found)

    by_rule = _apply_observations(cases, failures, selected, events)
    if rule_sentences is None and by_rule:  # a problem-wide rule broke: its sentence, from any case
        rule_sentences = {e.rule: e.rule_sentence for e in expectations.cases if e.rule}
    broken = _name_failures(cases, failures, selected, by_rule, rule_sentences)
    if limit:
        return result(limit[0], cases, limit[1])
    statuses = {c.status for c in cases}
    if memory_error:
        return result(
            Verdict.MEMORY_LIMIT_EXCEEDED,
            cases,
            f"Memory limit exceeded: an allocation failed under the {limits.memory_mb} MB limit.",
        )
    if jobs.CASE_ERROR in statuses:
        first = next(c for c in cases if c.status == jobs.CASE_ERROR)
        return result(Verdict.RUNTIME_ERROR, cases, first.message)
    if jobs.CASE_NOT_RUN in statuses:
        how = f" (exit status {raw.exit_status})" if raw.exit_status not in (None, 0) else ""
        return result(Verdict.RUNTIME_ERROR, cases, f"The program ended before all cases finished{how}.")
    if jobs.CASE_FAILED in statuses:
        n_failed = sum(c.status == jobs.CASE_FAILED for c in cases)
        failed = "1 case failed." if n_failed == 1 else f"{n_failed} cases failed."
        return result(Verdict.WRONG_ANSWER, cases, clean(" ".join([failed, *broken]), MESSAGE_LIMIT))
    if total == 0:
        return result(
            Verdict.INTERNAL_ERROR, cases, "The problem has no test cases for this mode.", "no_cases"
        )
    return result(
        Verdict.ACCEPTED, cases, "The 1 case passed." if total == 1 else f"All {total} cases passed."
    )
