"""The discussion in Chromium: a learner asks, another (a solver) answers with code, votes, the
asker marks the answer and pins it, edits and the history shows; spoiler code is folded for a
non-solver and open for a solver; a reported reply hidden by an admin leaves the thread. axe finds
nothing serious on the new pages, in either theme."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Visit, Visits
from tests.browser.test_courses import RIGHT, submit
from tests.browser.test_reports import no_serious_axe_findings

pytestmark = pytest.mark.browser

SLUG = "add-tensors"


def ask(v: Visit, title: str, body: str) -> int:
    v.page.goto(f"/problems/{SLUG}")
    v.page.locator("#discussion-link").click()
    v.page.wait_for_url(f"**/problems/{SLUG}/discussion")
    v.page.get_by_label("Title").fill(title)
    v.page.get_by_label(re.compile("^Your question")).fill(body)
    v.page.get_by_role("button", name="Post the question").click()
    v.page.wait_for_url(re.compile(r"/discussion/threads/\d+$"))
    return int(v.page.url.rsplit("/", 1)[1])


def test_ask_answer_vote_mark_pin_edit_and_spoilers(visits: Visits, server: Server) -> None:
    asker, solver, admin = visits.new("asker"), visits.new("solver"), visits.new("admin")
    asker.login(server.new_account())
    solver.login(server.new_account())
    admin.login(server.accounts.author)
    title = f"Why does broadcasting fail? {uuid.uuid4().hex[:4]}"
    thread = ask(asker, title, "My attempt:\n\n```python spoiler\nreturn a + b\n```\n")
    no_serious_axe_findings(asker, "thread")
    # The asker has not solved it: the spoiler is folded. The solver solves, then sees it open.
    assert asker.page.locator("#thread-body details.spoiler").get_attribute("open") is None
    submit(solver.page, SLUG, RIGHT, "Accepted")
    solver.page.goto(f"/discussion/threads/{thread}")
    expect(solver.page.locator("#thread-body details.spoiler")).to_have_attribute("open", "")
    solver.page.get_by_label(re.compile("^Reply")).fill("Use this:\n\n```python\nc = a + b\n```\n")
    solver.page.get_by_role("button", name="Post the reply").click()
    reply = solver.page.locator("article.reply-post").first
    expect(reply.locator("pre code")).to_contain_text("c = a + b")
    solver.page.locator("#thread-" + str(thread)).get_by_role("button", name="Vote ▲").click()
    expect(solver.page.locator(f"#thread-{thread}-votes")).to_have_text("1 vote")
    # The asker votes the reply, marks it as the answer and pins it.
    asker.page.reload()
    asker.page.locator("article.reply-post").first.get_by_role("button", name="Vote ▲").click()
    asker.page.get_by_role("button", name="Mark as the answer").click()
    asker.page.get_by_role("button", name="Pin first").click()
    first = asker.page.locator("article.reply-post").first
    expect(first.locator(".badge.answered")).to_have_text("The answer")
    expect(first.locator(".pinned-badge")).to_have_text("Pinned")
    expect(first.locator(".votes")).to_have_text("1 vote")
    # The asker edits the question: "edited", and the history shows both texts.
    asker.page.locator(f"#thread-{thread}").get_by_role("link", name="Edit").click()
    no_serious_axe_findings(asker, "edit")
    asker.page.get_by_label("Text (Markdown)").fill("Edited: now I know.")
    asker.page.get_by_role("button", name="Save").click()
    expect(asker.page.locator("#thread-body")).to_have_text("Edited: now I know.")
    asker.page.get_by_role("link", name="edited — history").click()
    expect(asker.page.locator("#revisions li")).to_have_count(2)
    expect(asker.page.locator("#revisions")).to_contain_text("return a + b")
    no_serious_axe_findings(asker, "history")
    asker.page.goto(f"/problems/{SLUG}/discussion")
    row = asker.page.locator(f"#thread-row-{thread}")
    expect(row).to_contain_text("Answered")
    expect(row).to_contain_text("1 reply")
    no_serious_axe_findings(asker, "list")
    # The asker reports the solver's reply; the admin hides it from the queue; it leaves the thread.
    asker.page.goto(f"/discussion/threads/{thread}")
    asker.page.locator("article.reply-post").first.locator("summary", has_text="Report").click()
    asker.page.locator("article.reply-post").first.get_by_label("What is wrong with this post?").fill(
        "Gives it away"
    )
    asker.page.get_by_role("button", name="Send the report").click()
    expect(asker.page.locator("#discussion-notice")).to_contain_text("a moderator will look")
    admin.page.goto("/moderation")
    report = admin.page.locator("article.moderation-report", has_text="Gives it away").first
    expect(report).to_contain_text("c = a + b")
    no_serious_axe_findings(admin, "queue")
    report.get_by_role("button", name="Hide the post").click()
    expect(admin.page.locator("#moderation-notice")).to_contain_text("hidden")
    asker.page.goto(f"/discussion/threads/{thread}")
    expect(asker.page.locator("article.reply-post")).to_have_count(0)
    solver.page.goto(f"/discussion/threads/{thread}")
    expect(solver.page.locator("article.reply-post")).to_contain_text("Hidden by a moderator")
    asker.page.goto(f"/problems/{SLUG}/discussion")
    expect(asker.page.locator(f"#thread-row-{thread}")).to_contain_text("0 replies")
