"""A learner's progress over time, drawn as an inline SVG on the server (no JS, no outside service).

The account page computes it with :func:`progress_chart` in its own request session and passes it
to ``templates/_progress_chart.html``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy.orm import Session

from app.kit.db import utcnow
from app.submissions import repository
from runner.verdict import Verdict

DAYS = 30
WIDTH, HEIGHT = 600, 190
LEFT, RIGHT, TOP, BOTTOM = 34, 34, 12, 28


@dataclass(frozen=True)
class Day:
    day: date
    submissions: int
    accepted: int
    solved_total: int  # problems solved by the end of this day (first accepted submit)


@dataclass(frozen=True)
class Bar:
    x: float
    width: float
    y: float
    height: float
    accepted_y: float
    accepted_height: float


@dataclass(frozen=True)
class ProgressChart:
    days: list[Day]
    bars: list[Bar]
    line: str  # SVG polyline points of the cumulative solved count
    last_point: tuple[float, float]
    max_submissions: int
    max_solved: int
    x_labels: list[tuple[float, str]]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = RIGHT
    top: int = TOP
    bottom: int = BOTTOM

    @property
    def solved(self) -> int:
        return self.days[-1].solved_total if self.days else 0

    @property
    def recent_submissions(self) -> int:
        return sum(d.submissions for d in self.days)

    @property
    def baseline(self) -> int:
        return HEIGHT - BOTTOM


def daily(session: Session, user_id: int, today: date, days: int = DAYS) -> list[Day]:
    """One row per day of the last ``days`` days (UTC), today included."""
    first = today - timedelta(days=days - 1)
    since = datetime(first.year, first.month, first.day, tzinfo=utcnow().tzinfo)
    solves = [at.date() for at in repository.first_solves(session, user_id)]
    counts: dict[date, list[int]] = {}
    for at, verdict in repository.activity_since(session, user_id, since):
        row = counts.setdefault(at.date(), [0, 0])
        row[0] += 1
        row[1] += verdict == Verdict.ACCEPTED
    rows = []
    for i in range(days):
        day = first + timedelta(days=i)
        submitted, accepted = counts.get(day, [0, 0])
        rows.append(Day(day, submitted, accepted, sum(1 for s in solves if s <= day)))
    return rows


def chart(days: list[Day]) -> ProgressChart:
    """SVG geometry: bars of daily submissions (accepted part highlighted), a line of problems solved."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(len(days), 1)
    max_subs = max([d.submissions for d in days] + [1])
    max_solved = max([d.solved_total for d in days] + [1])
    base = HEIGHT - BOTTOM
    bars, points = [], []
    for i, d in enumerate(days):
        x = LEFT + i * slot
        h = plot_h * d.submissions / max_subs
        ah = plot_h * d.accepted / max_subs
        bars.append(Bar(round(x + slot * 0.15, 1), round(slot * 0.7, 1), round(base - h, 1), round(h, 1),
                        round(base - ah, 1), round(ah, 1)))  # fmt: skip
        points.append((round(x + slot / 2, 1), round(base - plot_h * d.solved_total / max_solved, 1)))
    ticks = sorted({0, len(days) // 2, len(days) - 1}) if days else []
    labels = [(round(LEFT + i * slot + slot / 2, 1), days[i].day.strftime("%b %d")) for i in ticks]
    return ProgressChart(
        days=days,
        bars=bars,
        line=" ".join(f"{x},{y}" for x, y in points),
        last_point=points[-1] if points else (LEFT, base),
        max_submissions=max_subs,
        max_solved=max_solved,
        x_labels=labels,
    )


def progress_chart(session: Session, user_id: int) -> ProgressChart:
    """The last ``DAYS`` days of a learner's activity, ending today (UTC)."""
    return chart(daily(session, user_id, utcnow().date()))
