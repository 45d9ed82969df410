"""The one home of what counts: "solved", "judged" and "accepted" for progress and acceptance rates.

Python and SQL forms of each rule live side by side, so the maintained state (written as verdicts are
recorded) and the rebuild from the submissions table can never disagree on a definition.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_

from runner.verdict import Verdict

SUBMIT = "submit"
ACCEPTED = Verdict.ACCEPTED.value  # the one verdict list is runner.verdict.Verdict


def counts_as_judged(mode: str, verdict: str | None) -> bool:
    """A finished submit-mode submission counts towards its problem's acceptance rate (runs don't)."""
    return mode == SUBMIT and verdict is not None


def counts_as_solved(mode: str, verdict: str | None) -> bool:
    """A problem is solved by an accepted submit-mode submission (a passing Run is not a solve)."""
    return mode == SUBMIT and verdict == ACCEPTED


def solved_sql(mode: Any, verdict: Any) -> Any:
    """:func:`counts_as_solved` as a SQL condition over the given columns."""
    return and_(mode == SUBMIT, verdict == ACCEPTED)


def judged_sql(mode: Any, verdict: Any) -> Any:
    """:func:`counts_as_judged` as a SQL condition over the given columns."""
    return and_(mode == SUBMIT, verdict.is_not(None))
