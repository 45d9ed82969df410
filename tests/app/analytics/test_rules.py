"""What analytics counts, on plain data (``app.analytics.rules``): the definitions the verdict's
writer and the rebuild share."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.analytics import rules

T0 = datetime(2027, 2, 1, 9, 0, tzinfo=UTC)


def seen(
    minutes: float, verdict: str, passed: int = 0, mode: str = "submit", cases: list | None = None
) -> rules.Seen:
    return rules.Seen(T0 + timedelta(minutes=minutes), mode, verdict, passed, 3, cases or [])


def failing(name: str, kind: str, rule: str = "") -> dict[str, object]:
    failure = {"kind": kind} | ({"rule": rule} if rule else {})
    return {"name": name, "public": False, "status": "failed", "failure": failure}


def test_order_does_not_matter_and_internal_errors_count_for_nothing() -> None:
    history = [
        seen(0, "accepted", mode="run"),
        seen(5, "wrong_answer", 1, cases=[failing("broadcast", "shape")]),
        seen(7, "internal_error"),
        seen(9, "wrong_answer", 2, cases=[failing("broadcast", "rule", "no-loops")]),
        seen(20, "accepted", 3),
        seen(30, "wrong_answer", 0, cases=[failing("broadcast", "values")]),
    ]
    forward, backward = rules.summarise(history), rules.summarise(reversed(history))
    assert forward == backward
    assert (forward.runs, forward.attempts, forward.failed) == (1, 4, 3)
    assert forward.solved_at == T0 + timedelta(minutes=20) and forward.attempts_to_solve == 3
    assert forward.minutes_to_solve == 20.0  # from the first Run
    assert (forward.best_passed, forward.since_best) == (3, 1)
    assert forward.failures == {"hidden:broadcast": 3, "rule:no-loops": 1}
    assert sorted(kind for _hour, kind in forward.kinds) == ["rule", "shape", "values"]


def test_kinds_come_from_cases_else_from_the_verdict() -> None:
    assert rules.failure_kinds("compile_error", []) == {"exception"}
    assert rules.failure_kinds("time_limit_exceeded", []) == {"time"}
    both = [failing("a", "dtype"), failing("b", "gradients"), {"name": "c", "status": "not_run"}]
    assert rules.failure_kinds("wrong_answer", both) == {"dtype", "rule"}


def test_stuck() -> None:
    now = T0 + timedelta(hours=1)
    assert not rules.is_stuck(False, 4, 4, T0, now)  # too few failures
    assert not rules.is_stuck(True, 9, 9, T0, now)  # solved
    assert not rules.is_stuck(False, 5, 2, T0, now)  # improving lately
    assert rules.is_stuck(False, 5, 3, T0, now)  # flat for three Submits
    assert rules.is_stuck(False, 5, 0, T0, T0 + rules.STUCK_IDLE)  # nothing better for a day
