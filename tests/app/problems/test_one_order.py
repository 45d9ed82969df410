"""One order of problems everywhere (issue #40, part 7): the tracks' order, then each track's own.

The header's Next, the "Solved! Next" banner, "More from", the list (and its filters) and the API's
keyset pages all follow it; `/` starts a newcomer on the first track; the Learn tab's
solution-level sections stay folded until an attempt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import select

from app.kit.db import Database
from app.problems.models import Track


def _listed(html: str) -> list[str]:
    return re.findall(r'class="problem-row[^"]*" data-slug="([^"]+)"', html)


@pytest.fixture
def reductions_first(db: Database) -> Iterator[None]:
    """Test Reductions moved before Test Basics (so the one order differs from the alphabet's)."""
    with db.transaction() as session:
        track = session.scalars(select(Track).where(Track.slug == "test-reductions")).one()
        old, track.position = track.position, 1
    try:
        yield
    finally:
        with db.transaction() as session:
            session.scalars(select(Track).where(Track.slug == "test-reductions")).one().position = old


def test_the_list_the_filters_and_the_api_pages_follow_the_tracks(browser, reductions_first) -> None:
    order = ["sum-of-squares", "add-tensors", "scale-rows"]
    assert _listed(browser.get("/problems").text) == order
    assert _listed(browser.get("/problems?tag=tensors").text) == ["add-tensors", "scale-rows"]
    walked, url = [], "/api/v1/problems?limit=1"  # keyset pages over the same order
    while url:
        page = browser.get(url).json()
        walked += [p["slug"] for p in page["items"]]
        url = page["next"]
    assert walked == order


def test_next_is_the_same_in_the_header_the_banner_and_across_tracks(browser, reductions_first) -> None:
    first = browser.get("/problems/sum-of-squares").text  # the end of its track: on to the next track
    assert 'id="track-next" rel="next" href="/problems/add-tensors"' in first
    assert 'data-next-url="/problems/add-tensors"' in first  # "Solved! Next" goes to the same place
    middle = browser.get("/problems/add-tensors").text
    assert 'id="track-next" rel="next" href="/problems/scale-rows"' in middle
    assert 'data-next-url="/problems/scale-rows"' in middle
    last = browser.get("/problems/scale-rows").text  # the last problem of the last track
    assert 'id="track-next"' not in last


def test_more_from_lists_the_track_in_its_order(browser) -> None:
    page = browser.get("/problems/sum-of-squares").text
    assert "More from" not in page  # alone in its category
    related = browser.get("/problems/scale-rows").text.split('id="related-title"')[1]
    assert re.findall(r'href="/problems/([a-z-]+)"', related) == ["add-tensors"]


def test_the_front_page_starts_a_newcomer_on_the_first_track(
    new_browser, code_of: Callable[..., str], reductions_first
) -> None:
    anonymous = new_browser().get("/").text
    assert 'id="start-here-link" href="/problems/sum-of-squares"' in anonymous
    assert "Start here: Test Reductions" in anonymous
    assert 'id="start-here"' not in new_browser().get("/problems?difficulty=easy").text  # filtering: no card
    learner = new_browser()
    learner.signup()
    assert 'id="start-here"' in learner.get("/").text  # signed up, nothing tried yet: still a newcomer
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors"), "run").json()["id"])
    assert 'id="start-here"' not in learner.get("/").text


def test_the_lessons_solution_sections_open_after_an_attempt(new_browser, code_of: Callable[..., str]) -> None:
    learner = new_browser()
    learner.signup()
    before = learner.get("/problems/add-tensors").text
    assert 'id="learn-solution">' in before and "show anyway" in before  # folded: not open
    assert before.index("Broadcasting") < before.index('id="learn-solution"') < before.index("Why it matters")
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors"), "run").json()["id"])
    after = learner.get("/problems/add-tensors").text
    assert 'id="learn-solution" open>' in after and "show anyway" not in after
