"""``GET /api/v1/auth/tokens`` is keyset-paginated: every live token once, newest first, at any depth."""

from __future__ import annotations

import html
import re
from datetime import timedelta

from app.accounts import repository, tokens
from app.kit.db import Database, utcnow
from app.kit.paging import encode_cursor
from tests.app.keyset import assert_ordered_by_index, plan_of, walk


def _mint(db: Database, email: str, name: str, at_minutes: float, revoked: bool = False) -> int:
    with db.transaction() as session:
        user = repository.get_user_by_email(session, email)
        assert user is not None
        token, _plain = tokens.create_token(session, user, name, utcnow() - timedelta(minutes=at_minutes))
        if revoked:
            token.revoked_at = utcnow()
        return token.id


def test_walking_the_token_pages_gives_every_live_token_once_newest_first(db, student) -> None:
    # Pairs share a creation time (the id breaks the tie); a revoked token is never listed.
    minted = [_mint(db, student.email, f"t{i}", 100 + i // 2) for i in range(9)]
    revoked = _mint(db, student.email, "gone", 103, revoked=True)
    added: list[int] = []

    def between(page: int) -> None:
        if page == 1:  # a log-in meanwhile (newest: before the cursor) and an older token (after it)
            added.append(_mint(db, student.email, "new", 0))
            added.append(_mint(db, student.email, "old", 1000))

    pages = walk(student.get, "/api/v1/auth/tokens?limit=3", between=between)
    seen = [t["id"] for page in pages for t in page]
    assert all(len(page) <= 3 for page in pages) and len(pages) >= 4
    assert len(seen) == len(set(seen)), "a token was listed twice"
    assert revoked not in seen and added[0] not in seen and added[1] in seen
    # Exactly the live tokens, in (created_at, id) descending order, the API's own token included.
    everything = [t["id"] for t in student.get("/api/v1/auth/tokens?limit=100").json()["items"]]
    assert seen == [i for i in everything if i != added[0]]
    assert set(minted) <= set(seen)
    ordered = student.get("/api/v1/auth/tokens?limit=100").json()["items"]
    keys = [(t["created_at"], t["id"]) for t in ordered]
    assert keys == sorted(keys, reverse=True)


def test_token_page_limits_and_bad_cursors_are_422(student) -> None:
    first = student.get("/api/v1/auth/tokens").json()
    assert len(first["items"]) == 1 and first["next"] is None  # the default page holds them all
    for query in ("limit=0", "limit=101", "after=not-a-cursor", "after=WzEsMl0", "after=" + "A" * 1001):
        response = student.get(f"/api/v1/auth/tokens?{query}")
        assert response.status_code == 422 and response.json()["error"] == "invalid_input", query


def test_the_token_page_query_reads_its_index_in_order(db, student) -> None:
    with db.transaction() as session:
        user = repository.get_user_by_email(session, student.email)
        assert user is not None
        for after in (None, encode_cursor((utcnow(), 2**31 - 1))):  # the first page and a deeper one
            explained = plan_of(session, lambda a=after: tokens.page_of_tokens(session, user, a, 10))
            assert_ordered_by_index(explained, "ix_api_tokens_live")


def test_the_account_page_lists_the_newest_tokens_and_links_the_older_ones(learner, db: Database) -> None:
    assert learner.email is not None
    minted = [_mint(db, learner.email, f"page-{i}", 200 - i) for i in range(53)]  # oldest first
    first = learner.get("/account")
    assert first.status_code == 200
    shown = re.findall(r'action="/account/tokens/(\d+)/revoke"', first.text)
    assert [int(i) for i in shown] == minted[::-1][:50] and 'id="tokens-newest"' not in first.text
    older = re.search(r'href="(/account\?tokens_after=[^"#]+)#tokens" id="tokens-older"', first.text)
    assert older is not None
    second = learner.get(html.unescape(older.group(1)))
    assert [int(i) for i in re.findall(r'action="/account/tokens/(\d+)/revoke"', second.text)] == minted[
        ::-1
    ][50:]
    assert 'id="tokens-older"' not in second.text and 'id="tokens-newest"' in second.text
    assert learner.get("/account?tokens_after=forged").status_code == 422
