"""Server-rendered SVG charts: the geometry, computed here; the templates only draw it.

No script and no inline style (the pages' CSP is ``'self'``): shapes carry presentation attributes.
Every chart is an ``<svg role="img">`` named by its title and described in words, and its page
shows the same figures in a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.analytics import rules
from app.analytics.views import DayKinds, FailureCount, ProblemNumbers

# Colours that keep 3:1 against white and apart from each other (the legend names them too).
KIND_COLOURS: dict[str, str] = {
    "shape": "#1f77b4",
    "dtype": "#9467bd",
    "values": "#d62728",
    "rule": "#ff7f0e",
    "exception": "#6b6b6b",
    "time": "#2ca02c",
    "limits": "#8c564b",
}
SOLVED, TRYING, IDLE = "#2ca02c", "#ff7f0e", "#d0d0d0"


@dataclass
class Rect:
    x: float
    y: float
    width: float
    height: float
    fill: str
    label: str  # the shape's own <title>


@dataclass
class Text:
    x: float
    y: float
    text: str
    anchor: str = "start"


@dataclass
class Chart:
    width: int
    height: int
    rects: list[Rect] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)  # (colour, name)


def progress_bars(problems: list[ProblemNumbers], students: int, width: int = 640) -> Chart:
    """One bar per problem: solved, attempted but not solved, not started (of the active students)."""
    left, bar, gap = 180, 22, 12
    plot = width - left - 60
    legend = [(SOLVED, "solved"), (TRYING, "attempted, not solved"), (IDLE, "not started")]
    chart = Chart(width, 20 + len(problems) * (bar + gap), legend=legend)
    for i, p in enumerate(problems):
        y = 10 + i * (bar + gap)
        chart.texts.append(Text(left - 8, y + bar * 0.7, p.slug[:28], "end"))
        x = float(left)
        parts = ((p.solved, SOLVED, "solved"), (p.attempted - p.solved, TRYING, "attempted, not solved"),
                 (max(students - p.attempted, 0), IDLE, "not started"))  # fmt: skip
        for n, colour, words in parts:
            w = plot * n / students if students else 0
            if w > 0:
                chart.rects.append(Rect(x, y, w, bar, colour, f"{p.slug}: {n} {words}"))
            x += w
        chart.texts.append(Text(left + plot + 6, y + bar * 0.7, f"{p.solved}/{students}"))
    return chart


def kinds_over_time(days: list[DayKinds], width: int = 640, height: int = 220) -> Chart:
    """Stacked columns: each day's failed Submits by kind."""
    left, bottom, top = 40, 30, 10
    chart = Chart(width, height, legend=[(KIND_COLOURS[k], name) for k, name in rules.KINDS.items()])
    if not days:
        return chart
    peak = max(sum(d.counts.values()) for d in days) or 1
    plot_w, plot_h = width - left - 10, height - bottom - top
    step = plot_w / len(days)
    column = min(max(step * 0.8, 1.0), 48.0)  # one day alone is a column, not a wall
    for i, d in enumerate(days):
        x, y = left + i * step + (step - column) / 2, float(height - bottom)
        for kind in rules.KINDS:
            n = d.counts.get(kind, 0)
            if n:
                h = plot_h * n / peak
                y -= h
                chart.rects.append(
                    Rect(x, y, column, h, KIND_COLOURS[kind], f"{d.day}: {n} {rules.KINDS[kind]}")
                )
    every = max(1, len(days) // 8)
    for i in range(0, len(days), every):
        chart.texts.append(
            Text(left + i * step + step / 2, height - bottom + 16, days[i].day.strftime("%b %d"), "middle")
        )
    chart.texts.append(Text(left - 6, top + 10, str(peak), "end"))
    chart.texts.append(Text(left - 6, height - bottom, "0", "end"))
    return chart


def failure_bars(counts: list[FailureCount], students: int, width: int = 640, most: int = 10) -> Chart:
    """The cases (or rules) failed by the most students, one bar each."""
    shown = counts[:most]
    left, bar, gap = 240, 18, 8
    plot = width - left - 70
    chart = Chart(width, 10 + len(shown) * (bar + gap))
    top = max([c.students for c in shown] + [1])
    for i, c in enumerate(shown):
        y = 5 + i * (bar + gap)
        chart.texts.append(Text(left - 8, y + bar * 0.75, c.label[:36], "end"))
        w = plot * c.students / max(students, top)
        chart.rects.append(Rect(left, y, max(w, 1.0), bar, "#d62728", f"{c.label}: {c.students} students"))
        chart.texts.append(Text(left + w + 6, y + bar * 0.75, f"{c.students} students"))
    return chart
