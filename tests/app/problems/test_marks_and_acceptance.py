"""Solved/attempted marks and acceptance rates on the problem list and the problem page."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.app.conftest import Browser


def row(html: str, slug: str) -> str:
    match = re.search(rf'<tr class="problem-row[^"]*" data-slug="{slug}".*?</tr>', html, re.S)
    assert match, f"no row for {slug}"
    return match.group(0)


def test_marks_and_acceptance_rate(learner: Browser, code_of: Callable[..., str], new_browser) -> None:
    listing = learner.get("/problems").text
    assert "Solved" not in row(listing, "add-tensors") and "—" in row(listing, "add-tensors")

    wrong = learner.submit("sum-of-squares", "def sum_of_squares(x):\n    return 0\n", "submit")
    learner.verdict(wrong.json()["id"])
    wrong_add = code_of("add-tensors", "mutants/subtracts.py")
    learner.verdict(learner.submit("add-tensors", wrong_add).json()["id"])
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors")).json()["id"])

    listing = learner.get("/problems").text
    assert "Solved" in row(listing, "add-tensors") and "50%" in row(listing, "add-tensors")
    assert "Attempted" in row(listing, "sum-of-squares") and "0%" in row(listing, "sum-of-squares")
    assert "Solved" not in row(listing, "scale-rows") and "Attempted" not in row(listing, "scale-rows")

    solved_only = learner.get("/problems?status=solved").text
    assert 'data-slug="add-tensors"' in solved_only and 'data-slug="sum-of-squares"' not in solved_only
    todo = learner.get("/problems?status=todo").text
    assert 'data-slug="scale-rows"' in todo and 'data-slug="add-tensors"' not in todo

    page = learner.get("/problems/scale-rows").text  # "More from Test Basics" carries the mark
    related = page.split('id="related-title"')[1]
    assert "add-tensors" in related and "Solved" in related
    assert "Acceptance" in learner.get("/problems/add-tensors").text

    stranger = new_browser().get("/problems").text  # anonymous: rates yes, marks no
    assert "50%" in row(stranger, "add-tensors") and "Solved" not in row(stranger, "add-tensors")
