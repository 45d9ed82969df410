"""The problem page's history pages back with ``before``: every submission once, newest first."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.repository import get_user_by_email
from app.kit.db import Database, utcnow
from app.submissions import repository
from tests.app.courses import helpers
from tests.app.keyset import assert_ordered_by_index, plan_of, walk


def _store(db: Database, email: str, count: int, slug: str = "add-tensors") -> list[int]:
    with db.transaction() as session:
        who = _by_email(session, email)
        return [
            helpers.stored_submit(session, who, slug, utcnow() - timedelta(minutes=count - i)).id
            for i in range(count)
        ]


def _by_email(session: Session, email: str) -> User:
    found = get_user_by_email(session, email)
    assert found is not None
    return found


def test_history_pages_walk_every_submission_once_newest_first(learner, db: Database) -> None:
    assert learner.email is not None
    mine = _store(db, learner.email, 45)
    _store(db, learner.email, 3, slug="sum-of-squares")  # another problem's: never listed here
    meanwhile: list[int] = []

    def between(page: int) -> None:
        if page == 1:  # a verdict arrives between two pages: newer than the cursor, so not repeated
            meanwhile.extend(_store(db, learner.email or "", 1))

    pages = walk(learner.get, "/api/problems/add-tensors/submissions", key="submissions", between=between)
    seen = [s["id"] for page in pages for s in page]
    assert [len(p) for p in pages] == [20, 20, 5]
    assert seen == sorted(mine, reverse=True) and meanwhile[0] not in seen
    smaller = walk(learner.get, "/api/problems/add-tensors/submissions?limit=7", key="submissions")
    assert [s["id"] for p in smaller for s in p] == sorted(mine + meanwhile, reverse=True)
    assert all(len(p) <= 7 for p in smaller)


def test_the_problem_page_shows_the_first_twenty_and_links_the_older_ones(learner, db: Database) -> None:
    assert learner.email is not None
    page = learner.get("/problems/add-tensors").text
    assert (
        'id="history-older"' in page and "data-next" not in page.split('id="history-older"')[1].split(">")[0]
    )
    ids = _store(db, learner.email, 21)
    page = learner.get("/problems/add-tensors").text
    listed = [int(i) for i in re.findall(r'<li data-id="(\d+)"', page)]
    assert listed == sorted(ids, reverse=True)[:20]
    button = re.search(r'<button[^>]*id="history-older"[^>]*>', page)
    assert button is not None and " hidden" not in button.group(0)
    older = re.search(r'data-next="([^"]+)"', button.group(0))
    assert older is not None
    rest = learner.get(older.group(1).replace("&amp;", "&")).json()
    assert [s["id"] for s in rest["submissions"]] == [min(ids)] and rest["next"] is None


def test_bad_history_parameters_are_422(learner) -> None:
    for query in ("before=0", "before=abc", "limit=0", "limit=101", "before=99999999999"):
        response = learner.get(f"/api/problems/add-tensors/submissions?{query}")
        assert response.status_code == 422, query


def test_the_history_query_reads_its_index_in_order(learner, db: Database) -> None:
    # The learner's rows, most of them on another problem, counted by the planner (ANALYZE): with
    # no statistics for them PostgreSQL found the learner's own index (then a filter on the problem)
    # as cheap as the learner-and-problem one, and picked either from run to run.
    _store(db, learner.email or "", 30)
    _store(db, learner.email or "", 300, slug="sum-of-squares")
    if db.engine.dialect.name == "postgresql":
        with db.engine.begin() as connection:  # the statistics, committed
            connection.exec_driver_sql("ANALYZE submissions")
    with db.transaction() as session:
        who = _by_email(session, learner.email or "")
        explained = plan_of(
            session, lambda: repository.history_page(session, who.id, 1, before_id=10**6, limit=21)
        )
        assert_ordered_by_index(explained, "ix_submissions_user_problem_id")
