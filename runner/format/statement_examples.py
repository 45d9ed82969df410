"""A problem's statement checked against its reference: the required sections, and every example
Output quoted in ``statement.md`` equal to the reference's value for its public case."""

from __future__ import annotations

import ast
import re
from typing import Any

from runner.format.problem import ProblemFiles
from runner.format.validation_report import Finding, ValidationReport
from runner.jobs import Expectations
from runner.judging import compare
from runner.records import values

REQUIRED_STATEMENT_SECTIONS = ("Problem Statement", "Example", "Constraints")
OUTPUT_BLOCK_RE = re.compile(r"(?ims)^#{2,4}\s*Output\s*$\s*```[a-z]*\n(.*?)```")


def check_statement(problem: ProblemFiles, expectations: Expectations, report: ValidationReport) -> None:
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
