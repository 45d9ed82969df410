"""Published solutions through /api/v1 on the fixture bank, judged by the real runner: publishing,
the unlock rule (solve or give up), votes, comments, deleting, bounds and the rate limit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select

from app.accounts.models import User
from app.kit.db import Database
from app.kit.settings import Settings
from app.problems.models import Problem
from app.solutions import service
from tests.app.api_v1.conftest import ApiAccount
from tests.app.solutions.conftest import CODE, WRONG_ADD, publish, solve

LIST = "/api/v1/problems/add-tensors/solutions"
PER_MINUTE = Settings.model_fields["solution_posts_per_minute"].default


def test_a_solver_publishes_and_another_solver_reads_votes_and_comments(
    published: tuple[ApiAccount, dict[str, Any]], make_account: Callable[..., ApiAccount]
) -> None:
    author, solution = published
    assert solution["mine"] is True and solution["votes"] == 0 and solution["tags"] == ["broadcasting"]
    assert solution["code"] == CODE["add-tensors"]
    assert "<code>a + b</code>" in solution["write_up_html"]
    reader = make_account()
    solve(reader, "add-tensors")
    listing = reader.get(LIST)
    assert listing.status_code == 200, listing.text
    [item] = listing.json()["items"]
    assert item["id"] == solution["id"] and item["mine"] is False and item["author"].startswith("Learner #")
    assert author.email not in listing.text  # emails are never shown
    voted = reader.put(f"/api/v1/solutions/{solution['id']}/vote")
    assert voted.status_code == 200 and voted.json()["votes"] == 1 and voted.json()["voted"] is True
    again = reader.put(f"/api/v1/solutions/{solution['id']}/vote")
    assert again.json()["votes"] == 1  # one vote per reader
    own = author.put(f"/api/v1/solutions/{solution['id']}/vote")
    assert own.status_code == 403  # never one's own
    comment = reader.post(
        f"/api/v1/solutions/{solution['id']}/comments", json={"body": "Why not `torch.add`?"}
    )
    assert comment.status_code == 201, comment.text
    assert "<code>torch.add</code>" in comment.json()["body_html"]
    read = author.get(f"/api/v1/solutions/{solution['id']}").json()
    assert read["votes"] == 1 and read["comments"] == 1
    comments = author.get(f"/api/v1/solutions/{solution['id']}/comments").json()["items"]
    assert [c["body"] for c in comments] == ["Why not `torch.add`?"]
    back = reader.delete(f"/api/v1/solutions/{solution['id']}/vote")
    assert back.json()["votes"] == 0 and back.json()["voted"] is False


def test_a_non_solver_is_refused_until_they_give_up_and_the_give_up_is_recorded(
    published: tuple[ApiAccount, dict[str, Any]], make_account: Callable[..., ApiAccount], db: Database
) -> None:
    _author, solution = published
    other = make_account()
    solve(other, "add-tensors", WRONG_ADD)  # tried, not solved
    for url in (LIST, f"/api/v1/solutions/{solution['id']}", f"/api/v1/solutions/{solution['id']}/comments"):
        refused = other.get(url)
        assert refused.status_code == 403 and refused.json()["error"] == "solutions_locked", url
    for method, url in (("put", f"/api/v1/solutions/{solution['id']}/vote"),
                        ("post", f"/api/v1/solutions/{solution['id']}/comments")):  # fmt: skip
        refused = getattr(other, method)(url, json={"body": "x"})
        assert refused.status_code == 403, (method, url)
    status = other.get(f"{LIST}/status").json()
    assert status["open"] is False and status["reason"] == "locked"
    gave = other.post("/api/v1/problems/add-tensors/give-up")
    assert gave.status_code == 200 and gave.json()["reason"] == "gave_up" and gave.json()["gave_up_at"]
    assert [s["id"] for s in other.get(LIST).json()["items"]] == [solution["id"]]
    assert (
        other.post("/api/v1/problems/add-tensors/give-up").json()["gave_up_at"] == gave.json()["gave_up_at"]
    )
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == other.email)).one()
        problem = session.scalars(select(Problem).where(Problem.slug == "add-tensors")).one()
        counts = service.give_up_counts(session, [problem.id], [user.id])
        records = service.give_ups(session, [problem.id])
    assert counts == {(problem.id, user.id): 1}
    assert [(r.user_id, r.at.isoformat()[:19]) for r in records] == [
        (user.id, gave.json()["gave_up_at"][:19])
    ]


def test_what_cannot_be_published(student: ApiAccount, make_account: Callable[..., ApiAccount]) -> None:
    wrong = solve(student, "add-tensors", WRONG_ADD)
    ran = student.submit("add-tensors", CODE["add-tensors"], "run", wait="true", timeout=60).json()
    good = solve(student, "add-tensors")
    stranger = make_account()
    theirs = solve(stranger, "add-tensors")
    cases = [
        ({"submission_id": wrong["id"]}, 422),  # not accepted
        ({"submission_id": ran["id"]}, 422),  # a Run is not a solve
        ({"submission_id": theirs["id"]}, 404),  # somebody else's
        ({"submission_id": good["id"], "write_up": "   "}, 422),
        ({"submission_id": good["id"], "write_up": "x" * (service.MAX_WRITE_UP + 1)}, 422),
        ({"submission_id": good["id"], "write_up": "a\x00b"}, 422),
        ({"submission_id": good["id"], "title": ""}, 422),
        ({"submission_id": good["id"], "title": "x" * (service.MAX_TITLE + 1)}, 422),
        ({"submission_id": good["id"], "tags": ["a", "b", "c", "d", "e", "f"]}, 422),
        ({"submission_id": good["id"], "tags": ["x" * (service.MAX_TAG + 1)]}, 422),
        ({"submission_id": good["id"], "tags": ["tab\tbed\u202e"]}, 422),
    ]
    for fields, status in cases:
        response = publish(student, "add-tensors", **fields)
        assert response.status_code == status, (fields, response.text)
    on_other_problem = publish(student, "sum-of-squares", good["id"])
    assert on_other_problem.status_code == 404
    assert publish(student, "add-tensors", good["id"]).status_code == 201
    assert publish(student, "add-tensors", good["id"]).status_code == 409
    assert student.get(LIST).json()["items"][0]["tags"] == ["broadcasting"]


def test_sorting_by_votes_or_newest_filtering_by_tag_and_keyset_pages(
    make_account: Callable[..., ApiAccount],
) -> None:
    authors = [make_account() for _ in range(3)]
    ids = []
    for n, author in enumerate(authors):
        view = solve(author, "add-tensors")
        tags = ["Broadcasting", "one  liner"] if n != 1 else ["loops"]
        ids.append(publish(author, "add-tensors", view["id"], title=f"Way {n}", tags=tags).json()["id"])
    for voter in authors[:2]:
        assert voter.put(f"/api/v1/solutions/{ids[2]}/vote").status_code == 200
    assert authors[2].put(f"/api/v1/solutions/{ids[1]}/vote").status_code == 200
    reader = authors[0]
    by_votes = [s["id"] for s in reader.get(LIST).json()["items"]]
    assert by_votes == [ids[2], ids[1], ids[0]]
    newest = [s["id"] for s in reader.get(LIST, params={"sort": "newest"}).json()["items"]]
    assert newest == sorted(ids, reverse=True)
    tagged = reader.get(LIST, params={"tag": "broadcasting"}).json()["items"]
    assert [s["id"] for s in tagged] == [ids[2], ids[0]] and tagged[0]["tags"] == [
        "broadcasting",
        "one liner",
    ]
    pages: list[int] = []
    url: str | None = f"{LIST}?limit=1"
    while url:
        body = reader.get(url).json()
        pages += [s["id"] for s in body["items"]]
        url = body["next"]
    assert pages == by_votes
    assert reader.get(LIST, params={"sort": "best"}).status_code == 422
    assert reader.get(LIST, params={"after": "not-a-cursor"}).status_code == 422


def test_deleting_ones_own_solution_and_comment(
    published: tuple[ApiAccount, dict[str, Any]], make_account: Callable[..., ApiAccount]
) -> None:
    author, solution = published
    reader = make_account()
    solve(reader, "add-tensors")
    sid = solution["id"]
    comment = reader.post(f"/api/v1/solutions/{sid}/comments", json={"body": "Nice."}).json()
    assert author.delete(f"/api/v1/solution-comments/{comment['id']}").status_code == 404  # not theirs
    assert reader.delete(f"/api/v1/solution-comments/{comment['id']}").status_code == 204
    assert author.get(f"/api/v1/solutions/{sid}").json()["comments"] == 0
    assert author.get(f"/api/v1/solutions/{sid}/comments").json()["items"] == []
    assert reader.delete(f"/api/v1/solutions/{sid}").status_code == 404  # not theirs
    assert author.delete(f"/api/v1/solutions/{sid}").status_code == 204
    for who in (author, reader):
        assert who.get(f"/api/v1/solutions/{sid}").status_code == 404
        assert who.get(LIST).json()["items"] == []
        assert who.get(f"/api/v1/solutions/{sid}/comments").status_code == 404
    assert author.delete(f"/api/v1/solutions/{sid}").status_code == 404


def test_posting_is_rate_limited_with_retry_after(published: tuple[ApiAccount, dict[str, Any]]) -> None:
    author, solution = published  # publishing was one post
    url = f"/api/v1/solutions/{solution['id']}/comments"
    for n in range(PER_MINUTE - 1):
        assert author.post(url, json={"body": f"note {n}"}).status_code == 201
    refused = author.post(url, json={"body": "one too many"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert author.get(f"/api/v1/solutions/{solution['id']}").json()["comments"] == PER_MINUTE - 1


@pytest.mark.parametrize("scopes, allowed", [(["read"], False), (["read", "submit"], True)])
def test_token_scopes(
    published: tuple[ApiAccount, dict[str, Any]], db: Database, scopes: list[str], allowed: bool,
    make_account: Callable[..., ApiAccount],
) -> None:  # fmt: skip
    from tests.app.reports.test_reports_api import token_with

    _author, solution = published
    reader = make_account()
    solve(reader, "add-tensors")
    reader.token = token_with(db, reader.email, scopes)
    assert reader.get(LIST).status_code == 200
    voted = reader.put(f"/api/v1/solutions/{solution['id']}/vote")
    assert (voted.status_code == 200) is allowed
    if not allowed:
        assert voted.json()["error"] == "insufficient_scope"
