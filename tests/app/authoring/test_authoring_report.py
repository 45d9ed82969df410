"""The validation report card shows the kill matrix: which case rejects which mutant."""

from __future__ import annotations

import re

from app.kit.web import templates
from runner.format.validation_report import MutantReport, ValidationReport
from runner.jobs import CaseExpectation, Expectations


def test_the_report_card_shows_the_kill_matrix() -> None:
    report = ValidationReport(
        slug="demo",
        expectations=Expectations(
            cases=tuple(
                CaseExpectation(name=n, public=n == "example", rtol=0.0, atol=0.0, value=0)
                for n in ("example", "hidden", "unused")
            )
        ),
        mutants=[
            MutantReport("late.py", "wrong_answer", ["hidden"]),
            MutantReport("off.py", "wrong_answer", ["example", "hidden"]),
        ],
    )
    macro = templates.env.get_template("authoring/_report.html").module.report_card  # type: ignore[attr-defined]
    html = str(macro(report))
    rows = re.findall(r"<tr><th scope=\"row\">([^<]+)</th>(.*?)</tr>", html)
    assert [(name, re.findall(r"<td>(.)</td>", cells)) for name, cells in rows] == [
        ("late.py", ["·", "x", "·"]),
        ("off.py", ["x", "x", "·"]),
    ]
    assert "Cases: 1 example, 2 hidden, 3 unused." in html
    assert "Hidden cases that reject no mutant: unused." in html
