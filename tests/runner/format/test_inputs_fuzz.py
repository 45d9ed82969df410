"""Custom input is read or refused, found by search: whatever a learner types into "Run with my
input" (or an API client sends as its ``input``), ``read_arguments`` and ``check_arguments``
return checked arguments or raise ``InputError`` with a message, never another exception (which
the API would turn into a server error), and what they return materialises and becomes the
generated tests' source."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from runner.format import custom
from runner.format.inputs import InputError, check_arguments, materialise, read_arguments
from tests.runner import hostile_data

scalars = hostile_data.scalars(huge_digits=40, text_size=12)
KEYS = ["__tensor__", "dtype", "data", "shape"]
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.sampled_from(KEYS), children)
        | st.builds(
            lambda data, dtype: {"__tensor__": {"data": data, "dtype": dtype}},
            children,
            st.sampled_from(["float32", "float64", "int64", "bool", "float16", "complex64", "x"]) | children,
        )
    ),
    max_leaves=16,
)
# Pieces of the statement's notation and of Python, put together at random: most are wrong.
NOTATION = st.sampled_from(
    [
        "x = ",
        "y = ",
        "torch.tensor(",
        "torch.zeros(",
        "torch.ones(",
        "torch.arange(",
        "torch.randn(",
        "torch.full(",
        ")",
        "(",
        "[",
        "]",
        ", ",
        "dtype=torch.float64",
        "dtype=torch.int64",
        "requires_grad=True",
        ".reshape(",
        ".T",
        ".float()",
        "1",
        "-2.5",
        "1e308",
        "1e309",
        "nan",
        "float('nan')",
        "True",
        "None",
        "'s'",
        "\n",
        "import torch\n",
        "{",
        "}",
        ": ",
        "**",
        "lambda: 0",
        "__import__('os')",
        "10**10**10",
    ]
)
texts = st.one_of(
    st.text(max_size=60),
    values.map(lambda v: json.dumps({"x": v}, allow_nan=True)),
    values.map(lambda v: repr({"x": v})),
    st.lists(NOTATION, max_size=14).map("".join),
)


def _returned_or_refused(read: Any, given: Any) -> None:
    try:
        arguments = read(given)
    except InputError as exc:
        assert str(exc).startswith("input"), str(exc)
        event("refused")
        return
    event("read")
    assert isinstance(arguments, dict)
    for value in arguments.values():
        materialise(value)
    source = custom.tests_source("f", arguments)
    compile(source, "tests.py", "exec")  # the generated file is Python, whatever was typed


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_typed_text_is_read_or_refused_with_a_message(text: str) -> None:
    _returned_or_refused(read_arguments, text)


@settings(max_examples=300, deadline=None)
@given(body=st.dictionaries(st.text(max_size=6), values, max_size=4) | values)
def test_an_api_body_is_read_or_refused_with_a_message(body: Any) -> None:
    _returned_or_refused(check_arguments, body)


def test_the_readers_read_what_they_should() -> None:
    # The properties above must not hold only because everything is refused.
    assert read_arguments('{"x": [1, 2]}') == check_arguments({"x": [1, 2]})
    assert set(read_arguments("x = torch.zeros(2, 3)\ny = 2.5")) == {"x", "y"}
