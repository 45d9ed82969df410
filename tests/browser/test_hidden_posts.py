"""A reported post, once a moderator hides it, leaves every view in Chromium: a solution (the
problem's solutions, both sorts and its tag; its page and its comparison; the API; ``torchdrill
solutions``) and a question (the problem's discussion, its page, the problem page's count, the API).
The reports go through the posts' own Report forms and the hiding through the moderation queue;
its author still sees the post, marked. axe finds nothing serious on the queue or the author's
view, in either theme."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from typer.testing import CliRunner

from app.cli.main import app as cli
from tests.browser.conftest import Server, Visit, Visits
from tests.browser.solutions_world import Api, scratch_problem
from tests.browser.test_reports import no_serious_axe_findings

pytestmark = pytest.mark.browser


def publish(api: Api, slug: str, title: str, tag: str) -> int:
    fields = {"title": title, "write_up": f"{title}: `a + b`.", "tags": [tag]}
    made = api.post(f"/api/v1/problems/{slug}/solutions", json={"submission_id": api.solve(slug), **fields})
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


def ask(api: Api, slug: str, title: str) -> int:
    made = api.post(f"/api/v1/problems/{slug}/threads", json={"title": title, "body": f"{title}?"})
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


def hide_from_the_queue(admin: Visit, reason: str) -> None:
    admin.page.goto("/moderation?status=open")
    report = admin.page.locator("article.moderation-report", has_text=reason)
    expect(report).to_have_count(1)
    report.get_by_role("button", name="Hide the post").click()
    expect(admin.page.locator("#moderation-notice")).to_contain_text("the post is hidden")


def cli_solutions(
    server: Server, api: Api, slug: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """What ``torchdrill solutions SLUG`` prints for ``api``'s account."""
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / f"config-{uuid.uuid4().hex[:6]}.json"))
    runner = CliRunner()
    logged_in = runner.invoke(cli, ["login", "--server", server.url, "--token", api.token])
    assert logged_in.exit_code == 0, logged_in.output
    printed = runner.invoke(cli, ["solutions", slug])
    assert printed.exit_code == 0, printed.output
    return printed.output


def shown_solutions(page: Page, slug: str, query: str = "") -> list[str]:
    response = page.goto(f"/problems/{slug}/solutions{query}")
    assert response is not None and response.status == 200
    return page.locator("#solution-list h3").all_inner_texts()


def test_a_reported_post_once_hidden_leaves_every_view(
    visits: Visits, server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slug = scratch_problem(server, tmp_path, "An editorial.", "hidden")
    poster_email = server.new_account()
    poster = Api(server, poster_email)
    hidden_solution = publish(poster, slug, "Hide this way", "to-hide")
    kept_solution = publish(poster, slug, "Keep this way", "kept")
    hidden_thread, kept_thread = ask(poster, slug, "Hide this question"), ask(poster, slug, "Keep this")
    reader_email = server.new_account()
    reader_api = Api(server, reader_email)
    reader_api.solve(slug)
    reader = visits.new("reader")
    reader.login(reader_email, f"/problems/{slug}")
    page = reader.page
    # Before: everything shows, so each check below can fail.
    expect(page.locator("#discussion-link")).to_have_text("Discussion (2)")
    assert sorted(shown_solutions(page, slug)) == ["Hide this way", "Keep this way"]
    assert "Hide this way" in cli_solutions(server, reader_api, slug, tmp_path, monkeypatch)

    # The reader reports both through their pages' forms; an admin hides both from the queue.
    tag = uuid.uuid4().hex[:6]
    page.goto(f"/solutions/{hidden_solution}")
    page.get_by_text("Report this solution").click()
    page.get_by_label("Why should a moderator look at it?").fill(f"Copied from elsewhere {tag}")
    page.get_by_role("button", name="Report", exact=True).click()
    expect(page.locator("#solutions-notice")).to_contain_text("a moderator will look")
    page.goto(f"/discussion/threads/{hidden_thread}")
    question = page.locator(f"#thread-{hidden_thread}")
    question.locator("summary", has_text="Report").click()
    question.get_by_label("What is wrong with this post?").fill(f"Off topic {tag}")
    question.get_by_role("button", name="Send the report").click()
    expect(page.locator("#discussion-notice")).to_contain_text("a moderator will look")
    admin = visits.new("admin")
    admin.login(server.accounts.author, "/moderation")
    no_serious_axe_findings(admin, "queue-open")
    hide_from_the_queue(admin, f"Copied from elsewhere {tag}")
    hide_from_the_queue(admin, f"Off topic {tag}")
    admin.page.goto("/moderation?status=hidden")
    expect(admin.page.locator("article.moderation-report", has_text=tag)).to_have_count(2)
    no_serious_axe_findings(admin, "queue-hidden")

    # After, for the reader: the solution is out of both sorts, its tag, its pages, the API, the CLI.
    for query in ("", "?sort=newest"):
        assert shown_solutions(page, slug, query) == ["Keep this way"], query
    assert page.locator("nav .tag", has_text="to-hide").count() == 0  # nor is its tag offered
    assert shown_solutions(page, slug, "?tag=to-hide") == []
    for url in (f"/solutions/{hidden_solution}", f"/solutions/{hidden_solution}/compare"):
        response = page.goto(url)
        assert response is not None and response.status == 404, url
    listed = reader_api.get(f"/api/v1/problems/{slug}/solutions").json()["items"]
    assert [s["id"] for s in listed] == [kept_solution]
    assert reader_api.get(f"/api/v1/solutions/{hidden_solution}").status_code == 404
    printed = cli_solutions(server, reader_api, slug, tmp_path, monkeypatch)
    assert "Keep this way" in printed and "Hide this way" not in printed
    # The question is out of the discussion, its page, the problem page's count and the API.
    page.goto(f"/problems/{slug}/discussion")
    expect(page.locator(f"#thread-row-{kept_thread}")).to_have_count(1)
    expect(page.locator(f"#thread-row-{hidden_thread}")).to_have_count(0)
    response = page.goto(f"/discussion/threads/{hidden_thread}")
    assert response is not None and response.status == 404
    page.goto(f"/problems/{slug}")
    expect(page.locator("#discussion-link")).to_have_text("Discussion (1)")
    threads = reader_api.get(f"/api/v1/problems/{slug}/threads").json()["items"]
    assert [t["id"] for t in threads] == [kept_thread]
    assert reader_api.get(f"/api/v1/threads/{hidden_thread}").status_code == 404

    # Its author still sees both, marked.
    author = visits.new("author")
    author.login(poster_email, f"/solutions/{hidden_solution}")
    expect(author.page.locator("main")).to_contain_text("hidden by a moderator")
    no_serious_axe_findings(author, "own-hidden-solution")
    author.page.goto(f"/discussion/threads/{hidden_thread}")
    expect(author.page.locator("#thread-hidden")).to_be_visible()
    no_serious_axe_findings(author, "own-hidden-thread")
