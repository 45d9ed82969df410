"""Problem validation by running it: the one implementation behind the CLI, the API, the web
editor and CI.

A problem is valid when its folder follows the format, the reference passes every case
(and so defines the expected values), the starter runs but is not accepted, every mutant
is rejected (the report says which cases caught it: the mutation score), and every example
output quoted in ``statement.md`` equals the reference's value for the public case.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Protocol

from runner import jobs
from runner.format.problem import ProblemFiles
from runner.format.rules import MUTANT, MutantMeta, RulesError, mutant_meta, parse_rules
from runner.format.statement_examples import check_statement
from runner.format.tracks import unknown_category
from runner.format.validation_report import Finding, MutantReport, ValidationReport
from runner.jobs import ExpectationError, Expectations, Job, JudgeResult, Mode
from runner.judging import source_policy
from runner.records.check_value import reference_failure
from runner.verdict import Verdict


class Judge(Protocol):
    """What validation needs from a judge: the local ``Runner`` or the app's remote one."""

    def compute_expectations(self, problem: ProblemFiles) -> Expectations: ...

    def judge(self, job: Job) -> JudgeResult: ...

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job: ...


def _syntax(findings: list[Finding], source: str, file: str) -> bool:
    try:
        ast.parse(source, filename=file)
    except SyntaxError as exc:
        findings.append(Finding(file, f"syntax error: {exc.msg}", exc.lineno, "fix the Python syntax"))
        return False
    return True


def validate_problem(
    problem: ProblemFiles, runner: Judge, tracks: Sequence[str] | None = None
) -> ValidationReport:
    """Run the problem; ``tracks`` (the titles of the bank's tracks), when known, bound its category."""
    report = ValidationReport(slug=problem.slug)
    refused = unknown_category(problem.category, tracks) if tracks is not None else None
    if refused:
        report.errors.append(Finding("problem.toml", refused, None, "see tracks.toml in the problem bank"))
    sources_ok = all(
        [
            _syntax(report.errors, problem.solution, "solution.py"),
            _syntax(report.errors, problem.tests, "tests.py"),
            _syntax(report.errors, problem.starter, "starter.py"),
        ]
    )
    for name, source in problem.mutants.items():
        sources_ok = _syntax(report.errors, source, f"mutants/{name}") and sources_ok
    for name, source in problem.alternatives.items():
        sources_ok = _syntax(report.errors, source, f"alternatives/{name}") and sources_ok
    metas = _rules_and_metas(problem, report)
    if f"def {problem.entry_point}" not in problem.starter:
        report.errors.append(
            Finding(
                "starter.py",
                f"does not define {problem.entry_point}()",
                None,
                "the starter must show the signature learners fill in",
            )
        )
    if not sources_ok:
        return report
    try:
        expectations = runner.compute_expectations(problem)
    except ExpectationError as exc:
        file, _, message = str(exc).partition(": ")
        report.errors.append(Finding(file, message, None, "the reference must pass every case"))
        return report
    report.expectations = expectations
    for case in expectations.cases:
        failed = reference_failure(case.value)
        if failed:
            report.errors.append(
                Finding(
                    "solution.py",
                    f"case {case.name}: {failed}",
                    None,
                    "the reference defines what the check requires: make it pass (see the case's check)",
                )
            )
    check_statement(problem, expectations, report)

    starter = runner.judge(runner.job_for(problem, expectations, problem.starter, "submit"))
    report.starter_verdict = starter.verdict
    if starter.verdict == Verdict.ACCEPTED:
        report.errors.append(
            Finding(
                "starter.py",
                "the starter code is accepted: it gives the answer away",
                None,
                "leave the body as a TODO that fails the tests",
            )
        )
    elif starter.verdict in (Verdict.COMPILE_ERROR, Verdict.INTERNAL_ERROR):
        report.errors.append(Finding("starter.py", f"the starter does not run: {starter.message}"))

    reference = runner.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
    if not reference.accepted:
        report.errors.append(
            Finding(
                "solution.py",
                f"the reference is not accepted when judged: {reference.message}",
                None,
                "make the tests deterministic (seed every random choice)",
            )
        )

    for name, source in sorted(problem.alternatives.items()):
        judged = runner.judge(runner.job_for(problem, expectations, source, "submit"))
        if not judged.accepted:
            report.errors.append(
                Finding(
                    f"alternatives/{name}",
                    f"this accepted alternative is not accepted: {judged.message}",
                    None,
                    "an alternative must solve the problem within its rules (or belongs in mutants/)",
                )
            )

    for name, source in sorted(problem.mutants.items()):
        result = runner.judge(runner.job_for(problem, expectations, source, "submit"))
        caught = [c.name for c in result.cases if c.status != jobs.CASE_PASSED]
        refusal = source_policy.check(source, problem.source_allow)
        if refusal is not None:  # dies before it runs: the tests never see it
            caught = [source_policy.KILLED_BY_POLICY]
            report.warnings.append(
                Finding(f"mutants/{name}", f"killed by the source policy before it ran ({refusal})")
            )
        meta = metas.get(name, MutantMeta())
        mutant = MutantReport(
            name=name, verdict=result.verdict, caught_by=caught, rule=meta.rule, kind=meta.kind
        )
        report.mutants.append(mutant)
        if refusal is None:
            _check_failure_words(report, name, meta, result)
        if not mutant.killed:
            report.errors.append(
                Finding(
                    f"mutants/{name}",
                    "this cheat (a bypass attempt) is accepted"
                    if mutant.kind != MUTANT
                    else "this known-wrong solution is accepted",
                    None,
                    "add a hidden case that tells it apart from the reference"
                    + (f", a check of rule {mutant.rule} that sees this route" if mutant.rule else ""),
                )
            )
    if not problem.mutants:
        report.warnings.append(Finding("mutants/", "no mutants: the strength of the tests is not measured"))
    _check_rules_killed(report)
    return report


def _check_failure_words(report: ValidationReport, name: str, meta: MutantMeta, result: JudgeResult) -> None:
    """A mutant's rejection names what broke (docs/authoring.md, "Failure words"): a mutant of a rule
    fails naming that rule; any other fails naming a property (shape, values, ...), never only
    "failed"."""
    failed = [c for c in result.cases if c.status != jobs.CASE_PASSED]
    kinds = [(c.failure or {}).get("kind", "") for c in failed]
    named = [(c.failure or {}).get("rule", "") for c in failed]
    if meta.rule and meta.kind == MUTANT and failed and meta.rule not in named:
        report.errors.append(
            Finding(
                f"mutants/{name}",
                f"breaks rule {meta.rule} but no failure names it (the cases say: "
                f"{', '.join(sorted(set(filter(None, kinds))))})",
                None,
                "the rule's case must observe what the rule forbids (a check, forbid_ops, a count), "
                "not only the values",
            )
        )
    unnamed = [c.name for c, kind in zip(failed, kinds, strict=True) if not kind]
    if unnamed:
        report.errors.append(
            Finding(f"mutants/{name}", f"cases {', '.join(unnamed)} fail without naming what failed")
        )


def _rules_and_metas(problem: ProblemFiles, report: ValidationReport) -> dict[str, MutantMeta]:
    """Read the statement's rules and the mutants' front matter; record what is malformed."""
    try:
        report.rules = parse_rules(problem.statement)
    except RulesError as exc:
        report.errors.append(Finding("statement.md", f"Rules section: {exc}", exc.line))
    if not report.rules and "## Rules" not in problem.statement:
        report.warnings.append(
            Finding(
                "statement.md",
                "no '## Rules' section: the sentences that constrain how the code works "
                "are not tied to checks",
                None,
                "list them as - **rule-id**: sentence, and mark their cases @case(rule=...)",
            )
        )
    known = {r.id for r in report.rules}
    metas: dict[str, MutantMeta] = {}
    for name, source in problem.mutants.items():
        try:
            meta = mutant_meta(source)
        except RulesError as exc:
            report.errors.append(Finding(f"mutants/{name}", f"front matter: {exc}", exc.line))
            continue
        if meta.rule and meta.rule not in known:
            report.errors.append(
                Finding(
                    f"mutants/{name}",
                    f"names rule {meta.rule!r}, which the statement's Rules section does not list",
                    None,
                    "add the rule to '## Rules' in statement.md, or fix the id",
                )
            )
        metas[name] = meta
    return metas


def _check_rules_killed(report: ValidationReport) -> None:
    """Every rule has a check, a mutant that breaks exactly it and dies by it, and a cheat that dies;
    every check names a known rule."""
    if report.expectations is None:
        return
    known = {r.id for r in report.rules}
    checked: dict[str, list[str]] = {}
    for c in report.expectations.cases:
        if c.rule:
            checked.setdefault(c.rule, []).append(c.name)
            if c.rule not in known:
                report.errors.append(
                    Finding(
                        "tests.py",
                        f"case {c.name} names rule {c.rule!r}, "
                        "which the statement's Rules section does not list",
                        None,
                        "add the rule to '## Rules' in statement.md, or fix the id in @case(rule=...)",
                    )
                )
    for rule in report.rules:
        if rule.id not in checked:
            report.errors.append(
                Finding(
                    "tests.py",
                    f"rule {rule.id} has no check",
                    None,
                    f'mark the case that enforces it with @case(rule="{rule.id}")',
                )
            )
            continue
        mutants = [m for m in report.mutants if m.rule == rule.id and m.kind == MUTANT]
        if not any(rule.id in report.rules_caught(m) for m in mutants):
            report.errors.append(
                Finding(
                    "mutants/",
                    f"rule {rule.id} has no mutant that breaks it and dies by its check "
                    f"({', '.join(checked[rule.id])})",
                    None,
                    f"add mutants/<name>.py starting with '# rule: {rule.id}' that breaks only that rule",
                )
            )
        cheats = [m for m in report.mutants if m.rule == rule.id and m.kind != MUTANT]
        if not cheats:
            report.errors.append(
                Finding(
                    "mutants/",
                    f"rule {rule.id} has no cheat (a bypass attempt validation requires to die)",
                    None,
                    f"add mutants/<name>.py starting with '# rule: {rule.id}' and '# kind: cheat'",
                )
            )
    for m in report.mutants:
        if (
            m.rule
            and m.kind == MUTANT
            and m.killed
            and source_policy.KILLED_BY_POLICY not in m.caught_by  # refused before any check ran
            and m.rule in known
            and m.rule not in report.rules_caught(m)
        ):
            report.errors.append(
                Finding(
                    f"mutants/{m.name}",
                    f"breaks rule {m.rule} but no case of that rule rejects it "
                    f"(only {', '.join(m.caught_by)})",
                    None,
                    "fix the rule it declares, or the rule's check",
                )
            )
