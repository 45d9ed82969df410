"""A problem's discussion through /api/v1: threads, replies with code, votes, marks and pins, edit
history, deletes, spoilers, bounds, the rate limit and the problem's gate."""

from __future__ import annotations

from collections.abc import Callable

from tests.app.api_v1.conftest import ApiAccount
from tests.app.discussion.helpers import answer, ask, listed, patch, solve

CODE_REPLY = "Try this:\n\n```python\ny = x.sum(dim=1, keepdim=True)\n```\n"


def test_a_question_answered_voted_marked_pinned_and_edited(make_account: Callable[..., ApiAccount]) -> None:
    asker, helper, reader = make_account(), make_account(), make_account()
    thread = ask(asker)
    assert thread["replies"] == 0 and thread["votes"] == 0 and thread["answered"] is False
    reply = answer(helper, thread["id"], CODE_REPLY)
    assert '<pre><code class="language-python">' in reply["body_html"] and reply["body"] == CODE_REPLY
    # Votes: one per user, never one's own, the count maintained.
    assert reader.put(f"/api/v1/replies/{reply['id']}/vote").json() == {"votes": 1, "voted": True}
    assert reader.put(f"/api/v1/replies/{reply['id']}/vote").json() == {"votes": 1, "voted": True}
    assert asker.put(f"/api/v1/replies/{reply['id']}/vote").json()["votes"] == 2
    own = helper.put(f"/api/v1/replies/{reply['id']}/vote")
    assert own.status_code == 403, own.text
    assert asker.put(f"/api/v1/threads/{thread['id']}/vote").status_code == 403
    assert reader.delete(f"/api/v1/replies/{reply['id']}/vote").json() == {"votes": 1, "voted": False}
    # Marks: the asker marks the answer and pins it; a bystander may not.
    refused = reader.put(f"/api/v1/threads/{thread['id']}/marks", json={"answer": reply["id"]})
    assert refused.status_code == 403, refused.text
    marked = asker.put(
        f"/api/v1/threads/{thread['id']}/marks", json={"answer": reply["id"], "pinned": reply["id"]}
    )
    assert marked.status_code == 200, marked.text
    assert marked.json()["answered"] is True
    first = marked.json()["reply_list"][0]
    assert first["id"] == reply["id"] and first["answer"] and first["pinned"]
    later = answer(reader, thread["id"], "Another way.")
    assert [r["id"] for r in reader.get(f"/api/v1/threads/{thread['id']}").json()["reply_list"]] == [
        reply["id"], later["id"],
    ]  # fmt: skip
    not_here = asker.put(f"/api/v1/threads/{thread['id']}/marks", json={"answer": 2**31 - 1})
    assert not_here.status_code == 422
    # Editing keeps the previous text, and readers see it.
    edited = patch(helper, f"/api/v1/replies/{reply['id']}", {"body": "Edited: `keepdim=True`."})
    assert edited.status_code == 200 and edited.json()["marks"]["edited"] is True
    history = reader.get(f"/api/v1/replies/{reply['id']}/history").json()
    assert [r["body"] for r in history["revisions"]] == [CODE_REPLY, "Edited: `keepdim=True`."]
    assert [r["current"] for r in history["revisions"]] == [False, True]
    retitled = patch(asker, f"/api/v1/threads/{thread['id']}", {"title": "Why keepdim=True?"})
    assert retitled.status_code == 200 and retitled.json()["title"] == "Why keepdim=True?"
    assert (
        asker.get(f"/api/v1/threads/{thread['id']}/history").json()["revisions"][0]["title"] == "Why keepdim?"
    )
    listing = reader.get("/api/v1/problems/add-tensors/threads").json()["items"]
    row = next(t for t in listing if t["id"] == thread["id"])
    assert row["replies"] == 2 and row["answered"] is True


def test_only_the_author_edits_and_deletes(make_account: Callable[..., ApiAccount]) -> None:
    asker, other = make_account(), make_account()
    thread = ask(asker)
    reply = answer(other, thread["id"])
    assert patch(other, f"/api/v1/threads/{thread['id']}", {"body": "mine now"}).status_code == 403
    assert other.delete(f"/api/v1/threads/{thread['id']}").status_code == 403
    assert patch(asker, f"/api/v1/replies/{reply['id']}", {"body": "mine now"}).status_code == 403
    assert asker.delete(f"/api/v1/replies/{reply['id']}").status_code == 403
    assert other.get(f"/api/v1/replies/{reply['id']}/history").json()["revisions"][-1]["body"] != "mine now"
    # A reply deleted by its author leaves the thread, its count and the API.
    asker.put(f"/api/v1/threads/{thread['id']}/marks", json={"answer": reply["id"]})
    assert other.delete(f"/api/v1/replies/{reply['id']}").status_code == 204
    after = asker.get(f"/api/v1/threads/{thread['id']}").json()
    assert after["reply_list"] == [] and after["replies"] == 0 and after["answered"] is False
    assert asker.get(f"/api/v1/replies/{reply['id']}/history").status_code == 404
    assert patch(other, f"/api/v1/replies/{reply['id']}", {"body": "back"}).status_code == 404
    # A thread deleted by its author leaves every listing and answer.
    assert asker.delete(f"/api/v1/threads/{thread['id']}").status_code == 204
    assert thread["id"] not in listed(other)
    assert other.get(f"/api/v1/threads/{thread['id']}").status_code == 404
    assert asker.get(f"/api/v1/threads/{thread['id']}").status_code == 404
    assert other.post(f"/api/v1/threads/{thread['id']}/replies", json={"body": "hello"}).status_code == 404


def test_spoiler_code_is_folded_for_a_non_solver_and_open_for_a_solver(
    make_account: Callable[..., ApiAccount],
) -> None:
    solver, newcomer = make_account(), make_account()
    solve(solver)
    thread = ask(solver, "sum-of-squares", "My solution",
                 "Spoiler below.\n\n```python spoiler\nreturn (x ** 2).sum()\n```\n")  # fmt: skip
    for_solver = solver.get(f"/api/v1/threads/{thread['id']}").json()["body_html"]
    for_newcomer = newcomer.get(f"/api/v1/threads/{thread['id']}").json()["body_html"]
    assert '<details class="spoiler" open>' in for_solver
    assert '<details class="spoiler">' in for_newcomer and "open>" not in for_newcomer
    assert "Spoiler below." in for_newcomer


def test_bounds_and_bad_input(student: ApiAccount) -> None:
    url = "/api/v1/problems/add-tensors/threads"
    cases = [
        {"title": "", "body": "x"},
        {"title": "   ", "body": "x"},
        {"title": "ok", "body": "   "},
        {"title": "x" * 151, "body": "x"},
        {"title": "ok", "body": "x" * 20_001},
        {"title": "ok", "body": "a\x00b"},
        {"title": "line\nbreak", "body": "x"},
        {"title": "ok"},
    ]
    for body in cases:
        answer_ = student.post(url, json=body)
        assert answer_.status_code == 422, (body, answer_.text)
    assert listed(student) == []
    bad_cursor = student.get(url, params={"after": "not-a-cursor"})
    assert bad_cursor.status_code == 422
    assert student.get(url, params={"sort": "worst"}).status_code == 422
    assert student.get("/api/v1/problems/no-such-problem/threads").status_code == 404
    assert student.get(f"/api/v1/threads/{2**31 - 1}").status_code == 404


def test_keyset_pages_by_newest_and_by_votes(make_account: Callable[..., ApiAccount]) -> None:
    asker, voter = make_account(), make_account()
    ids = [ask(asker, title=f"Question {i}")["id"] for i in range(5)]
    voter.put(f"/api/v1/threads/{ids[1]}/vote")
    for sort, expected in (
        ("newest", ids[::-1]),
        ("votes", [ids[1], *[i for i in ids[::-1] if i != ids[1]]]),
    ):
        seen: list[int] = []
        url: str | None = f"/api/v1/problems/add-tensors/threads?sort={sort}&limit=2"
        while url:
            page = voter.get(url).json()
            seen += [t["id"] for t in page["items"]]
            url = page["next"]
        assert seen == expected, sort


def test_posting_is_rate_limited(student: ApiAccount) -> None:
    thread = ask(student)
    codes = [
        student.post(f"/api/v1/threads/{thread['id']}/replies", json={"body": f"r{i}"}) for i in range(8)
    ]
    limited = [r for r in codes if r.status_code == 429]
    assert limited, [r.status_code for r in codes]
    assert int(limited[0].headers["Retry-After"]) >= 1


def test_premium_problems_threads_are_premium_on_every_route(
    student: ApiAccount, member: ApiAccount, make_account: Callable[..., ApiAccount]
) -> None:
    thread = ask(member, "scale-rows")
    reply = answer(make_account(premium_days=3), thread["id"])
    refused = [
        student.get("/api/v1/problems/scale-rows/threads"),
        student.post("/api/v1/problems/scale-rows/threads", json={"title": "t", "body": "b"}),
        student.get(f"/api/v1/threads/{thread['id']}"),
        student.get(f"/api/v1/threads/{thread['id']}/history"),
        student.get(f"/api/v1/replies/{reply['id']}/history"),
        student.post(f"/api/v1/threads/{thread['id']}/replies", json={"body": "b"}),
        student.put(f"/api/v1/threads/{thread['id']}/vote"),
        student.put(f"/api/v1/replies/{reply['id']}/vote"),
        student.post("/api/v1/moderation/reports", json={"kind": "reply", "id": reply["id"], "reason": "x"}),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused), [r.text for r in refused]
    assert all(r.json()["error"] == "premium_required" for r in refused)
    page = student.client.get(f"/discussion/threads/{thread['id']}")
    assert page.status_code in (401, 403) or "premium" in page.text.lower()


def test_the_posting_limit_is_a_setting(student: ApiAccount, with_settings: Callable[..., None]) -> None:
    """``TORCHDRILL_DISCUSSION_POSTS_PER_MINUTE``: new threads, replies and edits spend one window."""
    with_settings(discussion_posts_per_minute=3)
    thread = ask(student)  # 1
    assert patch(student, f"/api/v1/threads/{thread['id']}", {"body": "Edited."}).status_code == 200  # 2
    url = f"/api/v1/threads/{thread['id']}/replies"
    assert student.post(url, json={"body": "r1"}).status_code == 201  # 3
    refused = student.post(url, json={"body": "r2"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    with_settings(discussion_posts_per_minute=1000)
    assert student.post(url, json={"body": "r3"}).status_code == 201
