"""``GET /api/v1/authoring/problems`` is keyset-paginated: drafts first, by category and title."""

from __future__ import annotations

import uuid
from typing import Any

from app.accounts.service import get_user_by_email
from app.authoring import listing, repository
from app.kit.db import Database
from app.problems.models import Problem
from tests.app.keyset import assert_ordered_by_index, plan_of, walk

API = "/api/v1/authoring/problems"


def _problem(db: Database, title: str, category: str, published: bool) -> str:
    slug = f"paging-{uuid.uuid4().hex[:10]}"
    with db.transaction() as session:
        session.add(
            Problem(slug=slug, title=title, difficulty="easy", category=category, published=published)
        )
    return slug


def _whole(db: Database, email: str) -> list[dict[str, Any]]:
    with db.transaction() as session:
        admin = get_user_by_email(session, email)
        return [{"slug": r.slug, "status": r.status} for r in listing.list_problems(session, admin)]


def test_authoring_pages_walk_every_problem_once_in_list_order(author: Any, db: Database) -> None:
    for i in range(7):  # same titles in one category: the id breaks the tie
        _problem(db, "Same title" if i < 3 else f"Title {i}", "paging", published=bool(i % 2))
    added: list[str] = []

    def between(page: int) -> None:
        if page == 1:  # a draft that sorts first (before the cursor) and a problem that sorts last
            added.append(_problem(db, "A", "a", published=False))
            added.append(_problem(db, "Z", "zzzz", published=True))

    pages = walk(author.get, f"{API}?limit=2", key="problems", between=between)
    seen = [{"slug": r["slug"], "status": r["status"]} for page in pages for r in page]
    assert all(len(p) <= 2 for p in pages)
    assert seen == [r for r in _whole(db, author.email) if r["slug"] != added[0]]
    assert seen[-1]["slug"] == added[1]
    for query in ("after=nope", "after=WyJhIl0", "limit=0", "limit=101"):
        response = author.get(f"{API}?{query}")
        assert response.status_code == 422 and response.json()["error"] == "invalid_input", query


def test_the_authoring_page_query_reads_its_index_in_order(db: Database) -> None:
    with db.transaction() as session:
        explained = plan_of(
            session, lambda: repository.list_all_problems(session, after=(False, "b", "c", 3), limit=11)
        )
    assert_ordered_by_index(explained, "ix_problems_authoring")
