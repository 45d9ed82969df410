"""The verdict's increment: ``rules.step`` folds to ``rules.summarise``, and any sequence of
verdicts (in any judging order, with re-judges) leaves the state equal to a rebuild."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.analytics import rules, state
from app.kit.db import Database
from app.submissions.judging import reopen_for_rejudge
from runner.jobs import JudgeResult
from tests.app.analytics.classroom import ACCEPTED, make_class, result, wrong

_START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
_KINDS = ["shape", "dtype", "values", "rule", "exception", "time_limit", "memory_limit", "gradients"]


def _case(draw: Any, name: str) -> dict[str, Any]:
    status = draw(st.sampled_from(["passed", "failed", "not_run"]))
    out: dict[str, Any] = {"name": name, "public": name == "example", "status": status}
    if status == "failed":
        kind = draw(st.sampled_from(_KINDS))
        out["failure"] = {"kind": kind} | (
            {"rule": draw(st.sampled_from(["r1", "r2"]))} if kind == "rule" else {}
        )
    return out


@st.composite
def _seen(draw: Any, at: datetime) -> rules.Seen:
    verdict = draw(
        st.sampled_from(
            ["accepted", "wrong_answer", "runtime_error", "compile_error", "internal_error", None]
        )
    )
    cases = [_case(draw, n) for n in ("example", "batch_of_one", "broadcast")] if draw(st.booleans()) else []
    passed = sum(1 for c in cases if c["status"] == "passed")
    mode = draw(st.sampled_from(["submit", "submit", "run", "custom"]))
    return rules.Seen(at, mode, verdict, passed, len(cases), cases)


@st.composite
def _history(draw: Any) -> list[rules.Seen]:
    gaps = draw(st.lists(st.integers(min_value=1, max_value=180), max_size=14))
    times, at = [], _START
    for gap in gaps:
        at += timedelta(minutes=gap)
        times.append(at)
    return [draw(_seen(t)) for t in times]


@given(_history())
def test_stepping_through_the_submissions_equals_summarising_them(history: list[rules.Seen]) -> None:
    stepped = rules.Summary()
    failures: list[str] = []
    kinds: list[tuple[datetime, str]] = []
    for s in history:
        done = rules.step(stepped, s)
        stepped = done.progress
        failures += done.failures
        kinds += done.kinds
    whole = rules.summarise(history)
    fields = [f for f in vars(whole) if f not in ("failures", "kinds")]
    assert {f: getattr(stepped, f) for f in fields} == {f: getattr(whole, f) for f in fields}
    assert sorted(failures) == sorted(whole.failures.elements())
    assert sorted(kinds) == sorted(whole.kinds.elements())


_VERDICTS: list[JudgeResult] = [
    ACCEPTED,
    wrong(("batch_of_one", "shape")),
    wrong(("batch_of_one", "values"), ("broadcast", "dtype")),
    wrong(("broadcast", "rule"), rule="no-loops"),
    result("runtime_error", []),
    result("internal_error", []),
]
_step = st.tuples(
    st.integers(min_value=0, max_value=1),  # which student
    st.sampled_from(["add-tensors", "scale-rows"]),
    st.integers(min_value=-30, max_value=60 * 24 * 4),  # minutes after the class started (some outside)
    st.sampled_from(["submit", "submit", "run"]),
    st.integers(min_value=0, max_value=len(_VERDICTS) - 1),
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(_step, min_size=1, max_size=8),
    order=st.randoms(use_true_random=False),
    rejudge=st.booleans(),
)
def test_any_sequence_of_verdicts_keeps_the_state_equal_to_a_rebuild(
    db: Database, steps: list[tuple[int, str, int, str, int]], order: Any, rejudge: bool
) -> None:
    room = make_class(db, students=2)
    made = [
        (room.submit(room.students[who], slug, minutes, mode), verdict)
        for who, slug, minutes, mode, verdict in steps
    ]
    order.shuffle(made)  # judged in any order: some older work is judged after newer work
    for submission_id, verdict in made:
        room.record(submission_id, _VERDICTS[verdict])
        with db.transaction() as session:
            assert state.compare(session).in_step
    if rejudge:
        submission_id, verdict = made[0]
        reopen_for_rejudge(db, submission_id)
        room.record(submission_id, _VERDICTS[(verdict + 1) % len(_VERDICTS)])
        with db.transaction() as session:
            assert state.compare(session).in_step
