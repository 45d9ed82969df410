"""Hypothesis strategies for the plain data a learner controls: what JSON can carry and then some
(``NaN``, infinities, integers far beyond a float's range, any text). One home for the searches
over the host comparer, custom input and whatever else reads such data."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def scalars(huge_digits: int = 400, text_size: int = 20) -> st.SearchStrategy[Any]:
    """``None``, booleans, integers (up to ``huge_digits`` digits), any float, text."""
    huge = 10**huge_digits
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=-huge, max_value=huge),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=text_size),
    )
