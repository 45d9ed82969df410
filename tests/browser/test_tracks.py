"""Learning paths in the browser: the tracks page with progress after solving, the Continue link,
previous/next within a track, hints revealed one at a time and still there after a reload, and a
Premium problem's hints locked. Screenshots of the tracks page in the light and the dark theme."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from app.problems import repository as problems_repository
from tests.browser.conftest import Server, Visits
from tests.browser.editor import bank_file, replace_code, wait_verdict

pytestmark = pytest.mark.browser

TRACK = "pytorch-advanced"
FIRST = "forward-hook-activations"  # order 1 in PyTorch Advanced
SECOND = "backward-hook-gradients"  # order 2


def _problems_in_track(server: Server) -> int:
    with server.database.transaction() as session:
        return len(problems_repository.track_problems(session, [_track_id(session)]))


def _track_id(session: Any) -> int:
    track = problems_repository.track_by_slug(session, TRACK)
    assert track is not None
    return track.id


def test_tracks_progress_continue_neighbours_and_hints(visits: Visits, server: Server) -> None:
    anon = visits.new("anonymous")
    anon.page.goto("/problems")
    anon.page.get_by_role("navigation", name="Main").get_by_role("link", name="Tracks").click()
    expect(anon.page.locator("#signup-cta")).to_be_visible()
    expect(anon.page.locator(".track .track-head h2").first).to_contain_text("Tensors & Broadcasting")
    expect(anon.page.locator(f"#track-{TRACK} .continue")).to_have_count(0)

    total = _problems_in_track(server)  # the bank's eight, and whatever other tests published there
    v = visits.new("learner")
    page = v.page
    v.login(server.new_account(), "/tracks")
    track = page.locator(f"#track-{TRACK}")
    expect(track.locator(".track-counts")).to_contain_text(f"0 solved · 0 attempted · {total} problems")
    expect(track.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "0")
    track.get_by_role("link", name="Continue: Register Forward Hook to Capture Activations").click()
    page.wait_for_url(f"**/problems/{FIRST}")

    nav = page.get_by_role("navigation", name="Problems in this track")
    expect(nav).to_contain_text(f"Problem 1 of {total} in PyTorch Advanced")
    expect(nav.locator("#track-previous")).to_have_count(0)
    expect(nav.locator("#track-next")).to_have_text("Next: Register Backward Hook to Capture Gradients →")

    hints = page.locator("#hint-list li")
    button = page.get_by_role("button", name="Show hint 1 of 3")
    expect(hints).to_have_count(0)
    button.click()
    expect(hints).to_have_count(1)
    expect(hints.first).to_contain_text("A forward hook is called as")
    expect(page.locator("#hint-btn")).to_have_text("Show hint 2 of 3")
    page.locator("#hint-btn").click()
    expect(hints).to_have_count(2)
    page.reload()  # remembered on the server
    expect(page.locator("#hint-list li")).to_have_count(2)
    expect(page.locator("#hint-btn")).to_have_text("Show hint 3 of 3")
    page.locator("#hint-btn").click()
    expect(page.locator("#hint-list li")).to_have_count(3)
    expect(page.locator("#hint-btn")).to_be_hidden()
    expect(page.locator("#hints-all")).to_be_visible()

    replace_code(page, bank_file(FIRST))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Accepted")

    page.locator("#track-next").click()
    page.wait_for_url(f"**/problems/{SECOND}")
    expect(page.locator("#track-previous")).to_have_text(
        "← Previous: Register Forward Hook to Capture Activations"
    )
    page.locator("#track-link").click()
    page.wait_for_url(f"**/tracks/{TRACK}")
    track = page.locator(f"#track-{TRACK}")
    expect(track.locator(".track-counts")).to_contain_text(f"1 solved · 1 attempted · {total} problems")
    expect(track.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "1")
    expect(track.locator(f'[data-slug="{FIRST}"] .mark-solved')).to_have_count(1)
    expect(track.locator(".continue")).to_have_text("Continue: Register Backward Hook to Capture Gradients")

    page.goto("/tracks")
    for theme in ("light", "dark"):
        page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        v.screenshot(f"tracks-{theme}")


def test_a_premium_problems_hints_are_locked(visits: Visits, server: Server) -> None:
    v = visits.new()
    v.login(server.new_account(), "/problems/modify-activations-hook")
    expect(v.page.locator("#hints-locked")).to_contain_text("3 hints — part of Premium.")
    expect(v.page.locator("#hint-btn")).to_have_count(0)
    expect(v.page.locator("#hint-list li")).to_have_count(0)

    member = visits.new("premium")
    member.login(server.accounts.premium, "/problems/modify-activations-hook")
    member.page.get_by_role("button", name="Show hint 1 of 3").click()
    expect(member.page.locator("#hint-list li")).to_have_count(1)
