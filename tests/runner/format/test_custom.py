"""runner.format.custom: the generated tests.py carries arguments as data; a custom job survives the wire."""

from __future__ import annotations

import ast
import json

import pytest

from runner.format import custom
from runner.format.custom import CASE_NAME, CustomInput
from runner.format.inputs import InputError, read_arguments
from runner.jobs import Expectations, Job


def test_hostile_strings_stay_data_in_the_generated_tests() -> None:
    hostile = '"); import os; os.system("x"); ("\\n\'\'\'\n'
    source = custom.tests_source("add", {"a": hostile, "b": 1})
    tree = ast.parse(source)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    # json.loads(<one string constant>), case(...), solution.add(**args), materialise(ARGS),
    # with_gradients(out, args)
    assert {ast.unparse(c.func) for c in calls} == {
        "json.loads",
        "case",
        "solution.add",
        "materialise",
        "with_gradients",
    }
    loads = next(c for c in calls if ast.unparse(c.func) == "json.loads")
    assert isinstance(loads.args[0], ast.Constant) and json.loads(loads.args[0].value)["a"] == hostile
    assert f"def {CASE_NAME}(solution)" in source


def test_entry_point_must_be_an_identifier() -> None:
    with pytest.raises(ValueError):
        custom.tests_source("add(); import os", {"a": 1})


def test_custom_job_round_trips_through_the_wire_format() -> None:
    given = CustomInput({"a": {"tensor": [1.0], "dtype": "float32"}}, "def add(a, b): return a + b")
    job = Job("add", "", "def add(a, b): ...", "run", Expectations(()), custom=given)
    again = Job.from_dict(job.to_dict())
    assert again == job
    assert "custom" not in Job("add", "", "", "run", Expectations(())).to_dict()


def test_text_is_read_as_json_or_python_literals_only() -> None:
    assert read_arguments("{'x': (1, 2), 'y': None}") == {"x": [1, 2], "y": None}
    assert read_arguments('{"x": {"tensor": [true, false]}}') == {
        "x": {"tensor": [True, False], "dtype": "bool"}
    }
    for text, rule in [
        ("{'x': open('/etc/passwd')}", "only literal values"),
        ('{"x": NaN}', "finite"),
        ("{'x': {1, 2}}", "set"),
        ("{'x': [1, 2", "neither JSON, a Python literal nor the statement's notation"),
        ("", "empty"),
    ]:
        with pytest.raises(InputError, match=rule):
            read_arguments(text)
