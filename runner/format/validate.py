"""Problem validation by running it: the one implementation behind the CLI, the API, the web
editor and CI.

A problem is valid when its folder follows the format, the reference passes every case
(and so defines the expected values), the starter runs but is not accepted, every mutant
is rejected (the report says which cases caught it: the mutation score), and every example
output quoted in ``statement.md`` equals the reference's value for the public case.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from runner import jobs
from runner.engine import ExpectationError
from runner.format.problem import ProblemFiles
from runner.format.rules import MUTANT, MutantMeta, Rule, RulesError, mutant_meta, parse_rules
from runner.format.tracks import unknown_category
from runner.jobs import Expectations, Job, JudgeResult, Mode
from runner.judging import compare, source_policy
from runner.records import values
from runner.records.check_value import reference_failure
from runner.verdict import Verdict

REQUIRED_STATEMENT_SECTIONS = ("Problem Statement", "Example", "Constraints")
OUTPUT_BLOCK_RE = re.compile(r"(?ims)^#{2,4}\s*Output\s*$\s*```[a-z]*\n(.*?)```")


class Judge(Protocol):
    """What validation needs from a judge: the local ``Runner`` or the app's remote one."""

    def compute_expectations(self, problem: ProblemFiles) -> Expectations: ...

    def judge(self, job: Job) -> JudgeResult: ...

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job: ...


@dataclass
class Finding:
    file: str
    message: str
    line: int | None = None
    fix: str = ""

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        return f"{where}: {self.message}" + (f" — {self.fix}" if self.fix else "")


@dataclass
class MutantReport:
    name: str
    verdict: str
    caught_by: list[str]
    rule: str = ""  # the statement's rule it declares it breaks (runner.format.rules), or ""
    kind: str = MUTANT  # "mutant" (an honest mistake) or "cheat" (a bypass attempt)

    @property
    def killed(self) -> bool:
        return self.verdict != Verdict.ACCEPTED


@dataclass
class ValidationReport:
    slug: str
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    mutants: list[MutantReport] = field(default_factory=list)
    expectations: Expectations | None = None
    starter_verdict: str = ""
    rules: tuple[Rule, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def mutation_score(self) -> str:
        killed = sum(m.killed for m in self.mutants)
        return f"{killed}/{len(self.mutants)}"

    def case_names(self) -> list[str]:
        return [c.name for c in self.expectations.cases] if self.expectations else []

    def kill_matrix(self) -> list[tuple[str, list[bool]]]:
        """One row per mutant: for each case (in declaration order), whether it rejects the mutant."""
        return [(m.name, [c in m.caught_by for c in self.case_names()]) for m in self.mutants]

    def rules_caught(self, mutant: MutantReport) -> list[str]:
        """The rules whose cases reject ``mutant`` (a case enforces at most one rule)."""
        if not self.expectations:
            return []
        by_case = {c.name: c.rule for c in self.expectations.cases if c.rule}
        return [r.id for r in self.rules if any(by_case.get(c) == r.id for c in mutant.caught_by)]

    def rule_matrix(self) -> list[tuple[str, list[bool]]]:
        """Rules × mutants: one row per mutant, for each rule whether a case of that rule rejects it."""
        return [(m.name, [r.id in self.rules_caught(m) for r in self.rules]) for m in self.mutants]

    def idle_cases(self) -> list[str]:
        """Hidden cases that reject no mutant: a weak test, or a mistake no mutant makes yet."""
        if not self.mutants or not self.expectations:
            return []
        caught = {c for m in self.mutants for c in m.caught_by}
        return [c.name for c in self.expectations.cases if not c.public and c.name not in caught]

    def to_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "ok": self.ok,
            "errors": [f.__dict__ for f in self.errors],
            "warnings": [f.__dict__ for f in self.warnings],
            "starter_verdict": self.starter_verdict,
            "mutation_score": self.mutation_score,
            "mutants": [{**m.__dict__, "killed": m.killed} for m in self.mutants],
            "cases": [{"name": c.name, "public": c.public} for c in self.expectations.cases]
            if self.expectations
            else [],
            "kill_matrix": {
                "cases": self.case_names(),
                "mutants": [{"name": name, "kills": kills} for name, kills in self.kill_matrix()],
            },
            "idle_cases": self.idle_cases(),
            "rules": [{"id": r.id, "sentence": r.sentence} for r in self.rules],
            "rule_matrix": {
                "rules": [r.id for r in self.rules],
                "mutants": [
                    {"name": name, "kind": m.kind, "rule": m.rule, "kills": kills}
                    for (name, kills), m in zip(self.rule_matrix(), self.mutants, strict=True)
                ],
            },
        }

    def render(self, matrix: bool = False) -> str:
        """One summary line per problem (and a line per surviving mutant); ``matrix``: the kill matrix."""
        lines = [f"{'PASS' if self.ok else 'FAIL'} {self.slug}"]
        if self.expectations:
            idle = self.idle_cases()
            lines.append(
                f"  cases: {len(self.expectations.cases)} ({len(self.expectations.public())} public); "
                f"starter: {self.starter_verdict or '-'}; mutation score: {self.mutation_score}"
                + (f"; hidden cases that reject no mutant: {', '.join(idle)}" if idle else "")
            )
        if matrix and self.mutants:
            lines += self._render_matrix()
            if self.rules:
                lines += self._render_rule_matrix()
        else:
            lines += [f"  mutant {m.name}: SURVIVED ({m.verdict})" for m in self.mutants if not m.killed]
        lines += [f"  error: {f}" for f in self.errors]
        lines += [f"  warning: {f}" for f in self.warnings]
        return "\n".join(lines)

    def _render_matrix(self) -> list[str]:
        cases = self.case_names()
        width = max(len(m.name) for m in self.mutants)
        lines = ["  kill matrix (x: the case rejects the mutant; cases:"]
        for i, name in enumerate(cases, start=1):  # wrapped between cases, never inside one
            item = f" {i} {name}" + (")" if i == len(cases) else ",")
            if len(lines[-1]) + len(item) > 110:
                lines.append("   ")
            lines[-1] += item
        numbers = range(1, len(cases) + 1)
        if len(cases) >= 10:  # column numbers are written downwards: tens above units
            lines.append(
                "    " + " " * width + "  " + " ".join(str(i // 10) if i >= 10 else " " for i in numbers)
            )
        lines.append("    " + " " * width + "  " + " ".join(str(i % 10) for i in numbers))
        for name, kills in self.kill_matrix():
            marks = " ".join("x" if k else "." for k in kills)
            by_policy = any(
                source_policy.KILLED_BY_POLICY in m.caught_by for m in self.mutants if m.name == name
            )
            survived = "  killed by the source policy" if by_policy else "" if any(kills) else "  SURVIVED"
            lines.append(f"    {name.ljust(width)}  {marks}{survived}")
        return lines

    def _render_rule_matrix(self) -> list[str]:
        width = max(len(m.name) for m in self.mutants)
        lines = ["  rules × mutants (x: a case of the rule rejects it; *: the rule it declares; rules:"]
        for i, rule in enumerate(self.rules, start=1):
            item = f" {i} {rule.id}" + (")" if i == len(self.rules) else ",")
            if len(lines[-1]) + len(item) > 110:
                lines.append("   ")
            lines[-1] += item
        lines.append(
            "    " + " " * (width + 9) + " ".join(f"{i:<2}" for i in range(1, len(self.rules) + 1)).rstrip()
        )
        for (name, kills), m in zip(self.rule_matrix(), self.mutants, strict=True):
            cells = []
            for rule, kill in zip(self.rules, kills, strict=True):
                mark = "x" if kill else "."
                cells.append(f"{mark}{'*' if m.rule == rule.id else ' '}")
            by_policy = source_policy.KILLED_BY_POLICY in m.caught_by
            state = "  killed by the source policy" if by_policy else "" if m.killed else "  SURVIVED"
            lines.append(f"    {name.ljust(width)}  {m.kind:<6} " + " ".join(cells).rstrip() + state)
        return lines


def _syntax(findings: list[Finding], source: str, file: str) -> bool:
    try:
        ast.parse(source, filename=file)
    except SyntaxError as exc:
        findings.append(Finding(file, f"syntax error: {exc.msg}", exc.lineno, "fix the Python syntax"))
        return False
    return True


def _check_statement(problem: ProblemFiles, expectations: Expectations, report: ValidationReport) -> None:
    headings = re.findall(r"(?m)^##\s+(.+?)\s*$", problem.statement)
    for section in REQUIRED_STATEMENT_SECTIONS:
        if section not in headings:
            report.errors.append(
                Finding(
                    "statement.md", f"missing section '## {section}'", None, f"add a '## {section}' heading"
                )
            )
    public = expectations.public()
    outputs = len(re.findall(r"(?im)^#{2,4}\s*Output\s*$", problem.statement))
    blocks = list(OUTPUT_BLOCK_RE.finditer(problem.statement))
    if outputs > len(blocks):  # an Output heading whose value is not the next thing: never compared
        report.errors.append(
            Finding(
                "statement.md",
                f"{outputs - len(blocks)} '### Output' heading(s) not followed directly by a ```python block",
                None,
                "put the example's value in a ```python block right under '### Output' (text may follow it)",
            )
        )
    for i, match in enumerate(blocks):
        line = problem.statement[: match.start(1)].count("\n") + 1
        if i >= len(public):
            report.errors.append(
                Finding("statement.md", "an example Output has no matching public case", line)
            )
            continue
        case = public[i]
        try:
            quoted = ast.literal_eval(match.group(1).strip())
        except (ValueError, SyntaxError):
            report.errors.append(
                Finding(
                    "statement.md",
                    "the example Output block is not a Python literal",
                    line,
                    "write the exact value the public case returns, e.g. {'a': [1, 2]}",
                )
            )
            continue
        try:
            encoded = values.encode(quoted)
        except values.UnsupportedValue as exc:
            report.errors.append(Finding("statement.md", f"example Output: {exc}", line))
            continue
        reference = case.value
        if isinstance(reference, dict) and "__tensor__" in reference:
            reference = _tensor_as_nested_list(reference)
        mismatch = compare.compare(reference, encoded, case.rtol, case.atol)
        if mismatch:
            report.errors.append(
                Finding(
                    "statement.md",
                    f"example Output disagrees with the reference for public case '{case.name}' at "
                    f"{mismatch.path}: {mismatch.reason}",
                    line,
                    f"replace it with {values.to_display(case.value)}",
                )
            )


def _tensor_as_nested_list(value: dict[str, Any]) -> Any:
    t = value["__tensor__"]
    data, shape = t["data"], t["shape"]

    def build(offset: int, dims: list[int]) -> tuple[Any, int]:
        if not dims:
            return data[offset], offset + 1
        out = []
        for _ in range(dims[0]):
            item, offset = build(offset, dims[1:])
            out.append(item)
        return out, offset

    return build(0, list(shape))[0]


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
    _check_statement(problem, expectations, report)

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
