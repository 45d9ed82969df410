"""Rules ↔ checks ↔ mutants: the statement's Rules section, @case(rule=...), mutants' front matter,
and what `problems validate` refuses — run against the real sandbox."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.format.rules import RulesError, mutant_meta, parse_rules
from runner.format.validate import validate_problem
from runner.format.validation_report import ValidationReport
from tests.runner.conftest import FIXTURES

SENTENCE = "Leave `x` as it is: return a new tensor."
STATEMENT = f"""## Problem Statement
Add one to every element.

## Example
### Input
`add_one(torch.tensor([1.0, 2.0]))`
### Output
```python
[2.0, 3.0]
```

## Rules

- **input-not-modified**: {SENTENCE}

## Constraints
None.
"""

TESTS = """import torch

from runner.testing import case


@case(public=True)
def example(solution):
    return solution.add_one(torch.tensor([1.0, 2.0]))


@case
def hidden(solution):
    return {"v": solution.add_one(torch.arange(5.0)).tolist()}


@case(rule="input-not-modified")
def input_never_written(solution):
    x = torch.arange(4.0)
    before = x._version
    solution.add_one(x)
    return {"writes": x._version - before}
"""

IN_PLACE = """# rule: input-not-modified
import torch


def add_one(x):
    return x.add_(1)
"""

RESTORES = """# rule: input-not-modified
# kind: cheat
# Adds in place, keeps a copy, and subtracts again: the values after the call are unchanged.
import torch


def add_one(x):
    out = x.add_(1).clone()
    x.sub_(1)
    return out
"""

PLUS_TWO = "import torch\n\n\ndef add_one(x):\n    return torch.as_tensor(x) + 2\n"


def make(tmp_path: Path, **files: str) -> Path:
    """add-one with a rule, its check, a mutant and a cheat; ``files`` override (None removes)."""
    folder = tmp_path / "add-one"
    shutil.copytree(FIXTURES / "add-one", folder)
    wanted: dict[str, str | None] = {
        "statement.md": STATEMENT,
        "tests.py": TESTS,
        "mutants/in_place.py": IN_PLACE,
        "mutants/cheat_restores.py": RESTORES,
        "mutants/plus_two.py": PLUS_TWO,
    }
    wanted.update({rel.replace("__", "/").replace("_py", ".py"): text for rel, text in files.items()})
    for rel, text in wanted.items():
        path = folder / rel
        if text is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def validate(runner: Runner, folder: Path) -> ValidationReport:
    return validate_problem(load_problem_dir(folder), runner)


def errors(runner: Runner, folder: Path) -> str:
    report = validate(runner, folder)
    assert not report.ok, report.render()
    return "\n".join(str(e) for e in report.errors)


def test_a_rule_with_its_check_mutant_and_cheat_passes_and_the_matrix_shows_rules_by_mutants(
    runner: Runner, tmp_path: Path
) -> None:
    report = validate(runner, make(tmp_path))
    assert report.ok, report.render()
    assert [(r.id, r.sentence) for r in report.rules] == [("input-not-modified", SENTENCE)]
    assert report.rule_matrix() == [
        ("cheat_restores.py", [True]),
        ("in_place.py", [True]),
        ("plus_two.py", [False]),
    ]
    lines = report.render(matrix=True).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  rules × mutants"))
    assert lines[start + 2 :] == [
        "    cheat_restores.py  cheat  x*",
        "    in_place.py        mutant x*",
        "    plus_two.py        mutant .",
    ]
    data = report.to_dict()
    assert data["rules"] == [{"id": "input-not-modified", "sentence": SENTENCE}]
    assert data["rule_matrix"]["mutants"][0] == {
        "name": "cheat_restores.py",
        "kind": "cheat",
        "rule": "input-not-modified",
        "kills": [True],
    }


def test_a_rule_without_a_check_is_refused(runner: Runner, tmp_path: Path) -> None:
    tests = TESTS.replace('@case(rule="input-not-modified")', "@case")
    message = errors(runner, make(tmp_path, **{"tests.py": tests}))
    assert "tests.py: rule input-not-modified has no check" in message


def test_a_check_naming_an_unknown_rule_is_refused(runner: Runner, tmp_path: Path) -> None:
    tests = TESTS.replace("@case\ndef hidden", '@case(rule="no-loops")\ndef hidden')
    message = errors(runner, make(tmp_path, **{"tests.py": tests}))
    assert "case hidden names rule 'no-loops', which the statement's Rules section does not list" in message


def test_a_rule_without_a_mutant_that_dies_by_its_check_is_refused(runner: Runner, tmp_path: Path) -> None:
    message = errors(runner, make(tmp_path, mutants__in_place_py=None))
    assert "rule input-not-modified has no mutant that breaks it and dies by its check" in message


def test_a_mutant_killed_only_by_another_case_does_not_count_for_its_rule(
    runner: Runner, tmp_path: Path
) -> None:
    message = errors(
        runner,
        make(
            tmp_path,
            mutants__in_place_py=None,
            mutants__plus_two_py="# rule: input-not-modified\n" + PLUS_TWO,
        ),
    )
    assert (
        "mutants/plus_two.py: breaks rule input-not-modified but no case of that rule rejects it" in message
    )
    assert "rule input-not-modified has no mutant that breaks it and dies by its check" in message


def test_a_rule_without_a_cheat_is_refused(runner: Runner, tmp_path: Path) -> None:
    message = errors(runner, make(tmp_path, mutants__cheat_restores_py=None))
    assert "rule input-not-modified has no cheat" in message


def test_a_surviving_cheat_is_refused(runner: Runner, tmp_path: Path) -> None:
    # Without the version check, values compared after the call cannot see modify-and-restore.
    tests = TESTS.replace(
        '    solution.add_one(x)\n    return {"writes": x._version - before}',
        '    return {"after": solution.add_one(x).tolist(), "x": x.tolist()}',
    )
    message = errors(runner, make(tmp_path, **{"tests.py": tests}))
    assert "mutants/cheat_restores.py: this cheat (a bypass attempt) is accepted" in message


def test_a_mutant_naming_a_rule_the_statement_does_not_list_is_refused(
    runner: Runner, tmp_path: Path
) -> None:
    message = errors(runner, make(tmp_path, mutants__plus_two_py="# rule: no-loops\n" + PLUS_TWO))
    assert (
        "mutants/plus_two.py: names rule 'no-loops', which the statement's Rules section does not list"
        in message
    )


def test_the_failure_names_the_rule_and_its_sentence(runner: Runner, tmp_path: Path) -> None:
    folder = make(tmp_path)
    problem = load_problem_dir(folder)
    expectations = runner.compute_expectations(problem)
    result = runner.judge(problem.job(expectations, RESTORES, "submit"))
    assert result.verdict == "wrong_answer"
    failed = {c.name: c.message for c in result.cases if c.status != "passed"}
    assert list(failed) == ["input_never_written"]
    assert failed["input_never_written"].startswith(f"Breaks rule input-not-modified ({SENTENCE}): ")
    assert result.message == f"1 case failed. Breaks rule input-not-modified ({SENTENCE})."


def test_a_problem_without_a_rules_section_is_warned_about(runner: Runner, tmp_path: Path) -> None:
    statement = STATEMENT.replace(f"## Rules\n\n- **input-not-modified**: {SENTENCE}\n\n", "")
    tests = TESTS.replace('@case(rule="input-not-modified")', "@case")
    report = validate(
        runner,
        make(
            tmp_path,
            **{"statement.md": statement, "tests.py": tests},
            mutants__in_place_py=None,
            mutants__cheat_restores_py=None,
        ),
    )
    assert report.ok, report.render()
    assert any("no '## Rules' section" in w.message for w in report.warnings)


def test_rules_wrap_and_say_none() -> None:
    rules = parse_rules(
        "## Rules\n\n- **a-rule**: first line\n  goes on.\n- **b**: two\n\n## Next\n- **x**: no\n"
    )
    assert [(r.id, r.sentence, r.line) for r in rules] == [
        ("a-rule", "first line goes on.", 3),
        ("b", "two", 5),
    ]
    assert parse_rules("## Rules\nNone.\n") == ()
    assert parse_rules("## Problem Statement\nno rules here\n") == ()


@pytest.mark.parametrize(
    ("section", "why"),
    [
        ("- a rule without an id\n", "must start with its id in bold"),
        ("- **Bad_Id**: x\n", "must be lower-case words joined by hyphens"),
        ("- **a**: x\n- **a**: y\n", "given twice"),
        ("- **a**:\n", "has no sentence"),
        ("Some prose.\n", "holds only bullets"),
    ],
)
def test_a_malformed_rules_section_is_refused(section: str, why: str) -> None:
    with pytest.raises(RulesError, match=why):
        parse_rules("## Rules\n\n" + section)


@pytest.mark.parametrize(
    ("front", "why"),
    [
        ("# kind: cheat\n", "must name the rule"),
        ("# rule: a\n# kind: sneaky\n", "kind must be one of"),
        ("# breaks: a\n", "unknown front matter key"),
        ("# rule: a\n# rule: b\n", "given twice"),
    ],
)
def test_malformed_front_matter_is_refused(front: str, why: str) -> None:
    with pytest.raises(RulesError, match=why):
        mutant_meta(front + "import torch\n")


def test_front_matter_stops_at_the_first_line_of_code() -> None:
    meta = mutant_meta("# rule: a\n# kind: cheat\n# why it is sneaky\nimport torch\n# rule: b\n")
    assert (meta.rule, meta.kind, meta.is_cheat) == ("a", "cheat", True)
    assert mutant_meta("import torch\n").rule == ""


def test_a_rule_mutant_whose_failures_only_name_values_is_refused(runner: Runner, tmp_path: Path) -> None:
    """The rule's case rejects it, but only because its values are wrong, as in the other cases: the
    learner would read "Values beyond tolerance", not the rule, so validation says the rule's case
    does not observe what the rule forbids."""
    tests = TESTS.replace(
        '    solution.add_one(x)\n    return {"writes": x._version - before}',
        '    out = solution.add_one(x).tolist()\n    return {"out": out, "writes": x._version - before}',
    )
    assert tests != TESTS  # so the check below can fail
    wrong = "# rule: input-not-modified\n" + PLUS_TWO
    message = errors(runner, make(tmp_path, **{"tests.py": tests, "mutants__plus_two_py": wrong}))
    assert "mutants/plus_two.py: breaks rule input-not-modified but no failure names it" in message
    assert "(the cases say: values)" in message
    assert "no case of that rule rejects it" not in message  # the kill matrix alone is satisfied


def test_a_rule_case_with_wrong_values_says_values_and_quotes_no_rule(runner: Runner, tmp_path: Path) -> None:
    report = validate(runner, make(tmp_path))
    assert report.ok, report.render()
    problem = load_problem_dir(make(tmp_path / "again"))
    assert report.expectations is not None
    result = runner.judge(runner.job_for(problem, report.expectations, PLUS_TWO, "submit"))
    hidden = next(c for c in result.cases if c.name == "hidden")
    assert hidden.failure is not None and hidden.failure["kind"] == "values"
    assert "Breaks rule" not in hidden.message and "statement says" not in hidden.message
    in_place = runner.judge(runner.job_for(problem, report.expectations, IN_PLACE, "submit"))
    rule_case = next(c for c in in_place.cases if c.name == "input_never_written")
    assert rule_case.failure is not None and rule_case.failure["kind"] == "rule"
    assert rule_case.failure["rule"] == "input-not-modified" and rule_case.failure["sentence"] == SENTENCE
