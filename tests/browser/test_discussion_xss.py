"""No stored-XSS attempt executes anywhere the discussion shows users' text, in Chromium.

Every payload of ``tests/browser/xss.py`` is written as a thread's title and body, a reply, an edit
of each, and a report's reason — through the API (one payload at a time) and through the pages'
forms (all of them at once) — and then viewed, with the page-level trap installed, on every page
that shows it: the problem's thread list (every page), each thread, each edit history, the edit form
and the moderation queue. Every element of the posts is hovered and every link clicked.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from html.parser import HTMLParser

import httpx
import pytest
from playwright.sync_api import Page

from app.accounts.service import sign_up
from app.accounts.tokens import create_token
from app.kit.db import utcnow
from tests.browser.conftest import PASSWORD, Server, Visit, Visits
from tests.browser.xss import PAYLOADS, assert_no_script_ran, hover_and_click_every_link, install_trap

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLUG = "sum-of-squares"


def _api(server: Server) -> httpx.Client:
    email = f"xss-{uuid.uuid4().hex[:8]}@example.com"
    with server.database.transaction() as session:
        user = sign_up(session, email, PASSWORD)
        _row, token = create_token(session, user, "xss", utcnow())
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=60)


def _one_line(text: str) -> str:
    """A payload as a title can hold it (one line, no control or format characters)."""
    kept = "".join(" " if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)
    return kept[:150].strip() or "payload"


def _storable(text: str) -> str:
    return text.replace("\x00", "")


class _Markup(HTMLParser):
    """What a browser would act on in the served HTML: tags, event handlers, script URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "iframe", "object", "embed", "style", "base", "meta", "form", "input", "svg"):
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("style", "srcdoc", "formaction"):
                self.found.append(f"{tag}[{name}]")
            if name in ("href", "src") and re.match(r"\s*(javascript|data|vbscript):", value or "", re.I):
                self.found.append(f"{tag}[{name}={value}]")


def _dangerous(html: str) -> list[str]:
    parser = _Markup()
    parser.feed(html)
    return parser.found


def _post_every_payload_through_the_api(server: Server) -> tuple[list[int], list[int]]:
    threads, replies = [], []
    for _family, payload in PAYLOADS:
        author, helper, reporter = _api(server), _api(server), _api(server)
        url = f"/api/v1/problems/{SLUG}/threads"
        made = author.post(url, json={"title": _one_line(payload), "body": payload})
        if "\x00" in payload:  # PostgreSQL cannot store NUL: refused, then written without it
            assert made.status_code == 422, made.text
            made = author.post(url, json={"title": _one_line(payload), "body": _storable(payload)})
        assert made.status_code == 201, (payload, made.text)
        thread = made.json()["id"]
        reply = helper.post(f"/api/v1/threads/{thread}/replies", json={"body": _storable(payload)})
        assert reply.status_code == 201, reply.text
        reply_id = reply.json()["id"]
        edit = author.patch(f"/api/v1/threads/{thread}", json={"body": _storable(payload) + "\n\n(edited)"})
        assert edit.status_code == 200, edit.text
        edit = helper.patch(f"/api/v1/replies/{reply_id}", json={"body": "(edited) " + _storable(payload)})
        assert edit.status_code == 200, edit.text
        for kind, target in (("thread", thread), ("reply", reply_id)):
            filed = reporter.post(
                "/api/v1/moderation/reports", json={"kind": kind, "id": target, "reason": _storable(payload)}
            )
            assert filed.status_code == 201, filed.text
        for html in [made.json()["body_html"], reply.json()["body_html"], edit.json()["body_html"]]:
            assert _dangerous(html) == [], (payload, html)
        threads.append(thread)
        replies.append(reply_id)
    return threads, replies


def _post_every_payload_through_the_pages(v: Visit, reporter: Visit) -> int:
    everything = _storable("\n\n".join(p for _, p in PAYLOADS))
    page = v.page
    page.goto(f"/problems/{SLUG}/discussion")
    page.get_by_label("Title").fill(_one_line(PAYLOADS[2][1]))
    page.get_by_label(re.compile("^Your question")).fill(everything)
    page.get_by_role("button", name="Post the question").click()
    page.wait_for_url(re.compile(r"/discussion/threads/\d+$"))
    thread = int(page.url.rsplit("/", 1)[1])
    page.get_by_label(re.compile("^Reply")).fill(everything)
    page.get_by_role("button", name="Post the reply").click()
    page.wait_for_url(re.compile(r"#reply-\d+$"))
    page.locator(f"#thread-{thread}").get_by_role("link", name="Edit").click()
    page.get_by_label("Text (Markdown)").fill(everything + "\n\n(edited)")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(rf"/discussion/threads/{thread}$"))
    # Reasons are at most 1,000 characters: the payloads in chunks, one report per post.
    chunks, chunk = [], ""
    for _, payload in PAYLOADS:
        if len(chunk) + len(payload) + 2 > 1000:
            chunks.append(chunk)
            chunk = ""
        chunk += _storable(payload) + "\n\n"
    chunks.append(chunk)
    reporter.page.goto(f"/discussion/threads/{thread}")
    targets = [reporter.page.locator(f"#thread-{thread}"), reporter.page.locator("article.reply-post").first]
    for target, reason in zip(targets, chunks, strict=False):
        target.locator("summary", has_text="Report").click()
        target.get_by_label("What is wrong with this post?").fill(reason)
        target.get_by_role("button", name="Send the report").click()
        reporter.page.wait_for_selector("#discussion-notice")
        assert "moderator will look" in reporter.page.locator("#discussion-notice").inner_text()
    return thread


def _look(page: Page, url: str, posts: str = "main", *, click: bool = True) -> None:
    """Open ``url`` with the trap; hover every element of ``posts`` and (in posts, whose links stay on
    the page or lead nowhere) click every link; nothing may have run."""
    page.goto(url)
    assert_no_script_ran(page)
    if click:
        hover_and_click_every_link(page, posts)
        page.wait_for_load_state()
    else:  # a list's links lead to other pages: hovered only (each page is opened on its own)
        for element in page.locator(f"{posts} *").all():
            if element.is_visible():
                element.hover(timeout=2000)
    assert_no_script_ran(page)


@pytest.mark.timeout(1200)  # ~40 payloads, each written five ways and viewed on ~120 pages
def test_no_stored_xss_attempt_runs_on_any_discussion_page(visits: Visits, server: Server) -> None:
    writer, reporter, reader, admin = (visits.new(n) for n in ("writer", "reporter", "reader", "admin"))
    for v in (writer, reporter, reader, admin):
        install_trap(v.context)
    writer.login(server.new_account(), f"/problems/{SLUG}/discussion")
    reporter.login(server.new_account())
    reader.login(server.new_account())
    admin.login(server.accounts.author, "/moderation")
    threads, replies = _post_every_payload_through_the_api(server)
    threads.append(_post_every_payload_through_the_pages(writer, reporter))
    assert_no_script_ran(writer.page)
    assert_no_script_ran(reporter.page)
    # The listing, every page of it, by newest and by votes.
    for sort in ("newest", "votes"):
        url: str | None = f"/problems/{SLUG}/discussion?sort={sort}"
        pages = 0
        while url:
            _look(reader.page, url, "#thread-list", click=False)
            reader.page.goto(url)
            link = reader.page.locator("#threads-next")
            url = link.get_attribute("href") if link.count() else None
            pages += 1
        assert pages >= 2
    # Every thread, and its history and its reply's.
    for thread in threads:
        _look(reader.page, f"/discussion/threads/{thread}", ".post-body")
        _look(reader.page, f"/discussion/threads/{thread}/history", "#revisions .post-body")
    for reply in replies:
        _look(reader.page, f"/discussion/replies/{reply}/history", "#revisions .post-body")
    _look(writer.page, f"/discussion/threads/{threads[-1]}/edit", "#edit-post", click=False)
    _look(writer.page, f"/problems/{SLUG}", "#discussion-link", click=False)
    # The moderation queue, every page.
    url = "/moderation?status=open"
    seen = 0
    while url:
        _look(
            admin.page, url, "article.moderation-report .report-reason, article.moderation-report blockquote"
        )
        admin.page.goto(url)
        seen += admin.page.locator("article.moderation-report").count()
        link = admin.page.get_by_role("link", name="Older reports →")
        url = link.get_attribute("href") if link.count() else None
    assert seen >= 2 * len(PAYLOADS) + 2
