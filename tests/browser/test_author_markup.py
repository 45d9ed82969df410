"""Author markup cannot take over the problem page's own elements, in Chromium.

The issue's attack: a statement holding ``<h2 id="starter-code">`` came first in the document, so
the page's Reset read the statement's heading instead of the starter code. The statement below
also carries an in-page link to one of its own headings. An admin author publishes it (site-wide)
through the authoring API; a learner presses Reset (and gets the starter code) and follows the
link (and lands on the heading).
"""

from __future__ import annotations

import re
import uuid

import httpx
import pytest
from playwright.sync_api import expect

from runner.format.problem import read_problem_files
from tests.browser.conftest import PASSWORD, Server, Visits
from tests.browser.editor import ROOT

pytestmark = pytest.mark.browser

SOURCE = "forward-hook-activations"
PLANTED = "# planted by the statement"
HOSTILE = (
    f'\n<h2 id="starter-code">"{PLANTED}"</h2>\n\n'
    '<h3 id="shapes">Shapes of the activations</h3>\n\n'
    "Each activation keeps its batch dimension; [see the shapes](#shapes).\n"
)


def _author_session(server: Server) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=120)
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/login").text)
    assert token
    answer = client.post(
        "/login",
        data={"email": server.accounts.author, "password": PASSWORD, "csrf_token": token.group(1)},
    )
    assert answer.status_code == 303, answer.text
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/authoring").text)
    assert token
    client.headers["X-CSRF-Token"] = token.group(1)
    return client


def test_a_statement_cannot_take_over_reset_and_its_anchor_links_work(visits: Visits, server: Server) -> None:
    slug = f"clobber-{uuid.uuid4().hex[:6]}"
    files = read_problem_files(ROOT / "problems" / SOURCE)
    files["problem.toml"] = (
        files["problem.toml"]
        .replace('title = "Register Forward Hook to Capture Activations"', f'title = "Clobbering ids {slug}"')
        .replace("order = 1\n", "order = 999\n")  # last in its track: the track's own first stays first
    )
    files["statement.md"] += HOSTILE
    author = _author_session(server)
    created = author.post("/api/v1/authoring/problems", json={"slug": slug, "files": files})
    assert created.status_code == 201, created.text
    published = author.post(f"/api/v1/authoring/problems/{slug}/publish")
    assert published.status_code == 200, published.text

    learner = visits.new("learner")
    learner.login(server.new_account(), f"/problems/{slug}")
    page = learner.page
    content = page.locator(".cm-content")
    expect(content).to_be_visible()
    starter_first_line = files["starter.py"].strip().splitlines()[0]

    page.get_by_role("button", name="Reset to starter").click()
    page.get_by_role("button", name="Replace").click()
    expect(content).to_contain_text(starter_first_line)
    expect(content).not_to_contain_text(PLANTED)

    page.get_by_role("link", name="see the shapes").click()
    page.wait_for_url(re.compile(r"#user-content-shapes$"))
    expect(page.locator("#user-content-shapes")).to_be_in_viewport()
