"""A question its author deletes: with replies, the thread stays as "[deleted]" with them (no title,
text or author shown, nothing left to do to the question) until its last reply goes; without any,
it leaves at once. Every route, over real HTTP."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.app.authoring.people import Person, anonymous
from tests.app.authoring.world import World

SECRET_TITLE = "My embarrassing title"
SECRET_BODY = "My embarrassing question text."


@pytest.fixture(autouse=True)
def many_posts(with_settings: Callable[..., None]) -> None:
    with_settings(discussion_posts_per_minute=1000)


def _thread(person: Person) -> int:
    made = person.api(
        "POST", "/api/v1/problems/add-tensors/threads", json={"title": SECRET_TITLE, "body": SECRET_BODY}
    )
    assert made.status_code == 201, made.text
    thread_id: int = made.json()["id"]
    return thread_id


def _reply(person: Person, thread_id: int, body: str = "A kept answer.") -> int:
    made = person.api("POST", f"/api/v1/threads/{thread_id}/replies", json={"body": body})
    assert made.status_code == 201, made.text
    reply_id: int = made.json()["id"]
    return reply_id


def _listed(person: Person) -> dict[int, dict[str, object]]:
    items = person.api("GET", "/api/v1/problems/add-tensors/threads?limit=100").json()["items"]
    return {t["id"]: t for t in items}


def test_a_deleted_question_keeps_its_replies_under_deleted(world: World) -> None:
    thread = _thread(world.student)
    reply = _reply(world.outsider, thread)
    answered = world.student.api("PUT", f"/api/v1/threads/{thread}/marks", json={"answer": reply})
    assert answered.status_code == 200
    deleted = world.student.page_post(f"/discussion/threads/{thread}/delete")
    assert deleted.status_code == 303 and deleted.headers["location"] == f"/discussion/threads/{thread}"

    for reader in (world.outsider.web, anonymous(world.url), world.student.web):
        page = reader.get(f"/discussion/threads/{thread}")
        assert page.status_code == 200
        assert "[deleted]" in page.text and "A kept answer." in page.text
        assert SECRET_TITLE not in page.text and SECRET_BODY not in page.text
        assert f'action="/discussion/threads/{thread}/replies"' not in page.text
    view = world.outsider.api("GET", f"/api/v1/threads/{thread}").json()
    assert (view["title"], view["author"], view["body"], view["deleted"]) == (
        "[deleted]",
        "[deleted]",
        "",
        True,
    )
    assert [r["id"] for r in view["reply_list"]] == [reply] and view["answered"] is True
    assert view["marks"]["mine"] is False
    row = _listed(world.outsider)[thread]
    assert row["title"] == "[deleted]" and row["deleted"] is True and row["replies"] == 1
    listing = world.outsider.web.get("/problems/add-tensors/discussion").text
    assert SECRET_TITLE not in listing and "[deleted]" in listing

    # Nothing more is done to the question itself: edit, delete, vote, history, report, reply.
    author, other = world.student, world.outsider
    assert author.api("PATCH", f"/api/v1/threads/{thread}", json={"body": "Back"}).status_code == 404
    assert author.web.get(f"/discussion/threads/{thread}/edit").status_code == 404
    assert (
        author.page_post(f"/discussion/threads/{thread}/edit", {"title": "t", "body": "b"}).status_code == 404
    )
    assert author.api("DELETE", f"/api/v1/threads/{thread}").status_code == 404
    assert author.page_post(f"/discussion/threads/{thread}/delete").status_code == 404
    assert other.api("PUT", f"/api/v1/threads/{thread}/vote").status_code == 404
    assert other.page_post(f"/discussion/threads/{thread}/vote", {"up": "1"}).status_code == 404
    assert other.api("GET", f"/api/v1/threads/{thread}/history").status_code == 404
    assert other.web.get(f"/discussion/threads/{thread}/history").status_code == 404
    report = {"kind": "thread", "id": thread, "reason": "Spam"}
    assert other.api("POST", "/api/v1/moderation/reports", json=report).status_code == 404
    assert other.api("POST", f"/api/v1/threads/{thread}/replies", json={"body": "More"}).status_code == 403
    assert other.page_post(f"/discussion/threads/{thread}/replies", {"body": "More"}).status_code == 403
    # Its author no longer marks; the replies live on (edited, voted, reported).
    assert author.api("PUT", f"/api/v1/threads/{thread}/marks", json={"pinned": reply}).status_code == 403
    assert other.api("PATCH", f"/api/v1/replies/{reply}", json={"body": "Edited answer."}).status_code == 200
    assert author.api("PUT", f"/api/v1/replies/{reply}/vote").status_code == 200
    reported = author.api(
        "POST", "/api/v1/moderation/reports", json={"kind": "reply", "id": reply, "reason": "x"}
    )
    assert reported.status_code == 201, reported.text

    # Its last reply gone, the "[deleted]" thread goes with it.
    gone = other.page_post(f"/discussion/replies/{reply}/delete")
    assert gone.status_code == 303 and gone.headers["location"] == "/problems/add-tensors/discussion"
    assert other.web.get(f"/discussion/threads/{thread}").status_code == 404
    assert other.api("GET", f"/api/v1/threads/{thread}").status_code == 404
    assert thread not in _listed(other)


def test_a_question_without_replies_goes_entirely(world: World) -> None:
    thread = _thread(world.student)
    hidden_reply_thread = _thread(world.student)
    lone = _reply(world.outsider, hidden_reply_thread)
    assert world.outsider.api("DELETE", f"/api/v1/replies/{lone}").status_code == 204
    assert world.student.api("DELETE", f"/api/v1/threads/{thread}").status_code == 204
    answer = world.student.page_post(f"/discussion/threads/{hidden_reply_thread}/delete")
    assert answer.status_code == 303 and answer.headers["location"] == "/problems/add-tensors/discussion"
    for gone in (thread, hidden_reply_thread):
        assert world.outsider.api("GET", f"/api/v1/threads/{gone}").status_code == 404
        assert world.outsider.web.get(f"/discussion/threads/{gone}").status_code == 404
        assert gone not in _listed(world.outsider)


def test_a_hidden_question_deleted_by_its_author_goes_with_its_replies_hidden(world: World) -> None:
    """A moderator hid the thread: its author's delete leaves nothing for anybody (replies included)."""
    thread = _thread(world.student)
    _reply(world.outsider, thread)
    filed = world.outsider.api(
        "POST", "/api/v1/moderation/reports", json={"kind": "thread", "id": thread, "reason": "Spam"}
    ).json()["id"]
    hid = world.admin.api("POST", f"/api/v1/moderation/reports/{filed}/action", json={"action": "hide"})
    assert hid.status_code == 200, hid.text
    assert world.student.api("DELETE", f"/api/v1/threads/{thread}").status_code == 204
    for person in (world.student, world.outsider, world.admin):
        assert person.api("GET", f"/api/v1/threads/{thread}").status_code == 404
        assert thread not in _listed(person)
