"""A refused post on the discussion's pages loses nothing typed: over the rate limit a new thread,
a reply and an edit come back on their form (429, ``Retry-After``) with the text kept and the
reason shown, and nothing of the refused posts is saved."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

from tests.app.conftest import Browser
from tests.app.courses.test_instructor_forms import value_of

LIST = "/problems/add-tensors/discussion"
LIMITED = "a minute; try again in"


def send(browser: Browser, url: str, page: str, **fields: str) -> Any:
    """The form at ``url`` sent from ``page`` (whose CSRF token it carries)."""
    return browser.post(url, data={**fields, "csrf_token": browser.csrf(page)})


def test_rate_limited_thread_reply_and_edit_forms_keep_the_typed_text(
    learner: Browser, with_settings: Callable[..., None]
) -> None:
    with_settings(discussion_posts_per_minute=2)
    made = send(learner, LIST, LIST, title="Why keepdim?", body="Shapes differ.")
    assert made.status_code == 303, made.text
    thread_url = made.headers["location"]
    thread_id = int(re.findall(r"\d+", thread_url)[0])
    replied = send(learner, f"{thread_url}/replies", thread_url, body="First answer.")
    assert replied.status_code == 303, replied.text

    typed = "My <i>second</i> answer & 'more'."
    reply = learner.post(
        f"{thread_url}/replies", data={"body": typed, "csrf_token": learner.csrf(thread_url)}
    )
    assert reply.status_code == 429 and int(reply.headers["Retry-After"]) >= 1
    assert 'id="form-error"' in reply.text and LIMITED in reply.text
    assert value_of(reply.text, "reply-body") == typed  # kept, escaped: shown as the text it is

    another = f"Another one {uuid.uuid4().hex[:8]}"
    thread = send(learner, LIST, LIST, title=another, body="Typed with care.")
    assert thread.status_code == 429 and 'id="form-error"' in thread.text and LIMITED in thread.text
    assert f'value="{another}"' in thread.text and value_of(thread.text, "thread-body") == "Typed with care."

    edit_url = f"/discussion/threads/{thread_id}/edit"
    edit = send(learner, edit_url, edit_url, title="Why keepdim?", body="Edited with care.")
    assert (
        edit.status_code == 429
        and LIMITED in edit.text
        and value_of(edit.text, "edit-body") == "Edited with care."
    )

    # Nothing refused was saved; the accepted posts were saved once.
    saved = learner.get(f"/api/v1/threads/{thread_id}")
    assert saved.status_code == 200, saved.text
    assert saved.json()["body"] == "Shapes differ."
    assert [r["body"] for r in saved.json()["reply_list"]] == ["First answer."]
    titles = [t["title"] for t in learner.get("/api/v1/problems/add-tensors/threads").json()["items"]]
    assert another not in titles and "Why keepdim?" in titles
