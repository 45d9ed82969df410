"""What validation reports: its findings, each mutant's fate, the kill and rule matrices, and how
the CLI, the API and the authoring pages render them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runner.format.rules import MUTANT, Rule
from runner.jobs import Expectations
from runner.judging import source_policy
from runner.verdict import Verdict


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
