"""A thread's replies in keyset pages (API and page): oldest first, the pinned reply and the answer
heading every page, each reply on exactly one page, and cursors that are not ours refused."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.app.api_v1.conftest import ApiAccount
from tests.app.authoring.people import anonymous
from tests.app.authoring.world import World
from tests.app.discussion.helpers import answer, ask


@pytest.fixture(autouse=True)
def many_posts(with_settings: Callable[..., None]) -> None:
    with_settings(discussion_posts_per_minute=1000)


def test_the_api_pages_replies_with_the_pinned_and_the_answer_on_top(
    make_account: Callable[..., ApiAccount],
) -> None:
    asker, helper = make_account(), make_account()
    thread = ask(asker)["id"]
    replies = [answer(helper, thread, f"Reply {i}.")["id"] for i in range(7)]
    marked = asker.client.put(
        f"/api/v1/threads/{thread}/marks",
        json={"answer": replies[5], "pinned": replies[3]},
        headers={"Authorization": f"Bearer {asker.token}"},
    )
    assert marked.status_code == 200, marked.text
    url: str | None = f"/api/v1/threads/{thread}?limit=2"
    pages: list[list[int]] = []
    while url:
        got = helper.get(url)
        assert got.status_code == 200, got.text
        pages.append([r["id"] for r in got.json()["reply_list"]])
        url = got.json()["replies_next"]
    assert all(page[:2] == [replies[3], replies[5]] for page in pages), pages
    stream = [i for page in pages for i in page[2:]]
    assert stream == [r for r in replies if r not in (replies[3], replies[5])]
    assert len(pages) == 3
    # The whole thread in one page by default, the pinned reply first, then the answer.
    whole = helper.get(f"/api/v1/threads/{thread}").json()
    assert [r["id"] for r in whole["reply_list"]][:2] == [replies[3], replies[5]]
    assert whole["replies_next"] is None and whole["replies"] == 7
    for bad in ("nope", "W10", "WyJ4Il0", "x" * 1001):
        assert helper.get(f"/api/v1/threads/{thread}?after={bad}").status_code == 422, bad
    for limit in (0, 201, -1):
        assert helper.get(f"/api/v1/threads/{thread}?limit={limit}").status_code == 422


def test_the_thread_page_pages_its_replies_and_lands_a_new_reply_on_its_page(world: World) -> None:
    thread = world.student.api(
        "POST", "/api/v1/problems/add-tensors/threads", json={"title": "Busy", "body": "Many answers."}
    ).json()["id"]
    ids = [
        world.outsider.api("POST", f"/api/v1/threads/{thread}/replies", json={"body": f"Answer {i}."}).json()[
            "id"
        ]
        for i in range(53)
    ]
    reader = anonymous(world.url)
    first = reader.get(f"/discussion/threads/{thread}")
    assert first.status_code == 200
    shown = [int(i) for i in re.findall(r'id="reply-(\d+)"', first.text)]
    assert shown == ids[:50] and "Newer replies" in first.text and "First replies" not in first.text
    newer = re.search(r'href="([^"]+)" id="newer-replies"', first.text)
    assert newer is not None
    second = reader.get(newer.group(1).replace("&amp;", "&"))
    assert [int(i) for i in re.findall(r'id="reply-(\d+)"', second.text)] == ids[50:]
    assert "Newer replies" not in second.text and "First replies" in second.text
    # A deleted reply leaves a line where it was (on the page only).
    assert world.outsider.page_post(f"/discussion/replies/{ids[1]}/delete").status_code == 303
    again = reader.get(f"/discussion/threads/{thread}").text
    assert "Answer 1." not in again and "A reply was deleted by its author." in again
    api_ids = [
        r["id"] for r in world.outsider.api("GET", f"/api/v1/threads/{thread}?limit=200").json()["reply_list"]
    ]
    assert ids[1] not in api_ids and len(api_ids) == 52
    # A new reply's page is the one that shows it (not the first page of a long thread).
    posted = world.student.page_post(f"/discussion/threads/{thread}/replies", {"body": "Late answer."})
    assert posted.status_code == 303 and "?after=" in posted.headers["location"]
    landed = world.student.web.get(posted.headers["location"])
    assert "Late answer." in landed.text and "First replies" in landed.text
    assert reader.get(f"/discussion/threads/{thread}?after=garbage").status_code == 422
