"""The progress-over-time chart on the account page (inline SVG, drawn on the server)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from app.submissions.progress_chart import Day, chart
from tests.app.conftest import Browser


def test_chart_geometry_scales_bars_and_line() -> None:
    days = [Day(date(2026, 1, d), subs, acc, solved) for d, subs, acc, solved in
            [(1, 0, 0, 0), (2, 4, 1, 1), (3, 2, 2, 3)]]  # fmt: skip
    c = chart(days)
    assert c.max_submissions == 4 and c.max_solved == 3 and c.solved == 3 and c.recent_submissions == 6
    empty, tallest, half = c.bars
    assert empty.height == 0 and tallest.y == c.top and half.height == tallest.height / 2
    assert half.accepted_height == half.height  # every submission of day 3 was accepted
    ys = [float(p.split(",")[1]) for p in c.line.split()]
    assert ys[0] == c.baseline and ys[-1] == c.top and ys[0] > ys[1] > ys[2]  # the solved line climbs
    assert [label for _, label in c.x_labels] == ["Jan 01", "Jan 02", "Jan 03"]


def test_account_page_shows_the_chart(learner: Browser, code_of: Callable[..., str]) -> None:
    wrong_add = code_of("add-tensors", "mutants/subtracts.py")
    learner.verdict(learner.submit("add-tensors", wrong_add).json()["id"])
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors")).json()["id"])
    html = learner.get("/account").text
    figure = html.split('id="progress-chart"')[1].split("</figure>")[0]
    assert "2 runs and submissions" in figure and "1 problem solved in total" in figure
    assert len(re.findall(r'<rect class="bar-solved"', figure)) == 1
    assert "<polyline" in figure and "<script" not in figure
