"""The discussion's moderation adapter: the queue's batch (``describe_many``) says exactly what the
one-by-one ``describe`` says, for threads, replies, hidden and deleted posts and ids that do not exist."""

from __future__ import annotations

from collections.abc import Callable

from app.discussion.moderation import DiscussionTargets
from app.kit.db import Database
from tests.app.api_v1.conftest import ApiAccount
from tests.app.discussion.helpers import answer, ask


def test_describe_many_matches_describe(db: Database, make_account: Callable[..., ApiAccount]) -> None:
    asker, helper = make_account(), make_account()
    threads = [ask(asker, title=f"Q{i}", body=f"Body {i} " + "word " * 100)["id"] for i in range(3)]
    replies = [answer(helper, threads[0], f"R{i}")["id"] for i in range(3)]
    assert asker.delete(f"/api/v1/threads/{threads[2]}").status_code == 204
    assert helper.delete(f"/api/v1/replies/{replies[2]}").status_code == 204
    targets = DiscussionTargets()
    with db.transaction() as session:
        targets.set_hidden(session, "reply", replies[1], True)
    for kind, ids in (("thread", threads), ("reply", replies)):
        asked = [*ids, 2**31 - 1]
        with db.transaction() as session:
            one_by_one = {i: targets.describe(session, kind, i) for i in asked}
        with db.transaction() as session:
            batch = targets.describe_many(session, kind, asked)
        assert batch == {i: info for i, info in one_by_one.items() if info is not None}
        assert len(batch) == 2  # the deleted post and the missing id are not described
    with db.transaction() as session:
        hidden = targets.describe(session, "reply", replies[1])
        first = targets.describe(session, "thread", threads[0])
    assert hidden is not None and hidden.hidden and hidden.url.endswith(f"#reply-{replies[1]}")
    assert first is not None and first.excerpt.startswith("Q0 — Body 0") and len(first.excerpt) <= 300
    with db.transaction() as session:
        assert targets.describe_many(session, "solution", [1]) == {}  # not its kind
