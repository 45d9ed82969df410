"""The host's verdict is total over whatever a job's result channel carries, found by search.

test_host_compare.py tries values one by one; this generates them. A harness whose encoder was
bypassed (a learner writing to the channel itself, for one) controls each case record's value
entirely: JSON with `NaN` and `Infinity`, integers of any size, the encoder's reserved keys
(``__tensor__``, ``__float__``, a check value's tag) holding anything, deep nesting, control
characters. Each such job, read the way the host reads a channel (``parse_records``) and judged
against real expectations (the probe's plain value and the seed problem's check values), must be
a verdict about the learner's code, never ``internal_error``, and must store as strict JSON (what
PostgreSQL's JSON columns and the API accept). The same holds for anything appended to the channel
after the harness's ``cases`` record, when judged code could first write: records of any type, in
any order, with any fields, and bytes that are not JSON.

The search found ``{"__float__": [...]}`` (an unhashable non-finite marker) crashing the comparer;
test_host_compare.py keeps it as a named case.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, Limits
from runner.judging.results import build_result
from runner.records.check_value import TAG
from runner.sandbox.channel import RawRun, parse_records
from runner.verdict import Verdict
from tests.runner import hostile_data
from tests.runner.conftest import FIXTURES

RESERVED = ("__tensor__", "__float__", TAG)
DTYPES = ("float32", "float64", "int64", "bool", "float16", "complex64", "", "f")
scalars = hostile_data.scalars()
tensors = st.fixed_dictionaries(
    {
        "dtype": st.sampled_from(DTYPES) | st.text(max_size=8),
        "shape": st.lists(st.integers(min_value=-2, max_value=4), max_size=3) | scalars,
        "data": st.lists(scalars, max_size=8) | scalars,
    }
)


def _values(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=6) | st.sampled_from(RESERVED), children, max_size=4),
        st.builds(lambda t: {"__tensor__": t}, tensors),
        st.builds(lambda v: {"__float__": v}, st.sampled_from(["nan", "inf", "-inf", "huge"]) | scalars),
        st.builds(lambda v: {TAG: v}, children),
    )


values = st.recursive(scalars | st.builds(lambda t: {"__tensor__": t}, tensors), _values, max_leaves=12)
statuses = st.sampled_from(["ok", "ok", "ok", "error", "missing", "passed", ""])


@pytest.fixture(scope="module")
def judged(runner: Runner) -> list[tuple[ProblemFiles, Expectations]]:
    """The probe (its reference returns 0) and the seed problem (check values in its cases)."""
    found = []
    for folder in (FIXTURES / "probe", FIXTURES.parents[2] / "problems" / "backward-hook-gradients"):
        problem = load_problem_dir(folder)
        found.append((problem, runner.compute_expectations(problem)))
    return found


# What else a case record carries, each field any value: the harness's description of an
# exception and the case's output, as the host reads them for an error.
FIELDS = ("exception", "message", "line", "column", "traceback", "stdout", "time_ms")
record_fields = st.dictionaries(st.sampled_from(FIELDS), values, max_size=4)


def _channel(
    names: list[str], returned: list[Any], statuses: list[str], fields: list[dict[str, Any]]
) -> bytes:
    lines: list[dict[str, Any]] = [
        {"type": "start"},
        {"type": "cases", "cases": [{"name": n} for n in names]},
    ]
    for name, value, status, more in zip(names, returned, statuses, fields, strict=False):
        lines.append({**more, "type": "case", "name": name, "status": status, "value": value})
    lines.append({"type": "done"})
    # allow_nan: the channel is bytes the learner may have written; JSON's NaN and Infinity parse.
    return b"".join(json.dumps(line, allow_nan=True).encode() + b"\n" for line in lines)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    which=st.integers(min_value=0, max_value=1),
    case_values=st.lists(values, min_size=1, max_size=6),
    case_statuses=st.lists(statuses, min_size=6, max_size=6),
    case_fields=st.lists(record_fields, min_size=6, max_size=6),
    mode=st.sampled_from(["run", "submit"]),
)
def test_no_channel_content_is_an_internal_error(
    judged: list[tuple[ProblemFiles, Expectations]],
    which: int,
    case_values: list[Any],
    case_statuses: list[str],
    case_fields: list[dict[str, Any]],
    mode: str,
) -> None:
    _problem, expectations = judged[which]
    names = [c.name for c in expectations.select(mode)]  # type: ignore[arg-type]
    raw = RawRun()
    parse_records(raw, _channel(names, case_values, case_statuses, case_fields))
    result = build_result(raw, expectations, mode, Limits())  # type: ignore[arg-type]
    assert result.verdict != Verdict.INTERNAL_ERROR, result.message
    json.dumps(result.to_dict(), allow_nan=False)  # stores and serves as strict JSON


# Anything judged code could append to the channel once the harness has sent its "cases" record
# (the learner's module is imported only after it): records of every type, in any order, with
# any fields, and lines that are not JSON at all.
KINDS = (
    "case",
    "done",
    "event",
    "compile_error",
    "import_error",
    "tests_error",
    "sandbox_error",
    "start",
    "cases",
    "x",
)
records = st.builds(
    lambda kind, fields: {**fields, "type": kind},
    st.sampled_from(KINDS) | values,
    st.dictionaries(
        st.sampled_from((*FIELDS, "name", "status", "value", "cases", "type")), values, max_size=5
    ),
)
lines = st.one_of(
    records.map(lambda r: json.dumps(r, allow_nan=True).encode()),
    st.binary(max_size=40),
)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(which=st.integers(min_value=0, max_value=1), appended=st.lists(lines, max_size=8))
def test_nothing_appended_to_the_channel_is_an_internal_error(
    judged: list[tuple[ProblemFiles, Expectations]], which: int, appended: list[bytes]
) -> None:
    _problem, expectations = judged[which]
    names = [c.name for c in expectations.select("submit")]
    head = [{"type": "start"}, {"type": "cases", "cases": [{"name": n} for n in names]}]
    raw = RawRun()
    parse_records(raw, b"".join(json.dumps(r).encode() + b"\n" for r in head) + b"\n".join(appended) + b"\n")
    result = build_result(raw, expectations, "submit", Limits())
    assert result.verdict != Verdict.INTERNAL_ERROR, result.message
    json.dumps(result.to_dict(), allow_nan=False)
