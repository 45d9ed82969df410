"""The report lists are keyset-paged in SQL with the one cursor format (``app.kit.paging``): the
reporter's own list and a problem's, through ``/api/v1/reports`` and the reports page, every
report once, newest first, what the reader may not read never on any page, and a forged cursor a 422."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from app.accounts.models import User
from app.kit.db import Database, utcnow
from app.kit.paging import encode_cursor
from app.problems.models import Problem
from app.reports.models import TestReport
from app.submissions.models import Submission
from tests.app.api_v1.conftest import ApiAccount
from tests.app.keyset import walk

CASES = [{"name": "example", "public": True, "status": "failed", "message": "Values beyond tolerance.",
          "time_ms": 1.0}]  # fmt: skip


def file_reports(db: Database, email: str, slug: str, n: int) -> list[int]:
    """``n`` reports by ``email`` on finished runs of ``slug`` (rows, as the service stores them)."""
    ids = []
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        problem = session.scalars(select(Problem).where(Problem.slug == slug)).one()
        for i in range(n):
            run = Submission(user_id=user.id, problem_id=problem.id, mode="run", code=f"# {i}",
                             problem_version_id=problem.current_version_id, status="finished",
                             verdict="wrong_answer", passed=0, total=1, cases=CASES,
                             message="1 case failed.", created_at=utcnow())  # fmt: skip
            session.add(run)
            session.flush()
            report = TestReport(submission_id=run.id, problem_id=problem.id, reporter_id=user.id,
                                case_name="example", note=f"note {i}",
                                status="open" if i % 3 else "fixed")  # fmt: skip
            session.add(report)
            session.flush()
            ids.append(report.id)
    return ids


def test_the_lists_page_in_sql_with_the_one_cursor(
    make_account: Callable[..., ApiAccount], db: Database
) -> None:
    mine, other = make_account(), make_account()
    admin = make_account(role="admin")
    own = file_reports(db, mine.email, "add-tensors", 7)
    theirs = file_reports(db, other.email, "add-tensors", 3)

    def get(account: ApiAccount) -> Callable[[str], Any]:
        return lambda url: account.get(url)

    # The reporter's own: every one once, newest first, none of anybody else's.
    pages = walk(get(mine), "/api/v1/reports?limit=3")
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [r["id"] for p in pages for r in p] == sorted(own, reverse=True)
    # Filtered by status, the filter rides along in `next`.
    fixed = walk(get(mine), "/api/v1/reports?limit=1&status=fixed")
    assert [r["id"] for p in fixed for r in p] == sorted(
        (i for n, i in enumerate(own) if n % 3 == 0), reverse=True
    )
    # On the problem: a learner reads their own there too, never another learner's.
    on_problem = walk(get(other), "/api/v1/reports?problem=add-tensors&limit=2")
    assert [r["id"] for p in on_problem for r in p] == sorted(theirs, reverse=True)
    # An admin (who manages every problem) reads all of them, paged.
    everything = walk(get(admin), "/api/v1/reports?problem=add-tensors&limit=4")
    assert [r["id"] for p in everything for r in p] == sorted(set(own) | set(theirs), reverse=True)
    # A cursor is the one format's: a forged or foreign one is the caller's mistake, never a 500.
    for forged in ("not-a-cursor", encode_cursor(["x"]), encode_cursor([1, 2]), "A" * 2000):
        answer = mine.get("/api/v1/reports", params={"after": forged})
        assert answer.status_code == 422, (forged, answer.text)
    # A cursor pointing past another learner's reports still only shows your own.
    below_all = encode_cursor([max(theirs) + 1])
    shown = mine.get("/api/v1/reports", params={"after": below_all, "limit": 100}).json()["items"]
    assert {r["id"] for r in shown} <= set(own)


def test_the_reports_page_links_the_older_reports(
    make_account: Callable[..., ApiAccount], db: Database, admin: Any
) -> None:
    learner = make_account()
    ids = file_reports(db, learner.email, "add-tensors", 53)  # the page shows 50 at a time
    first = admin.get("/problems/add-tensors/reports")
    assert first.status_code == 200
    assert f'id="report-{max(ids)}"' in first.text and f'id="report-{min(ids)}"' not in first.text
    older = first.text.split('id="reports-older" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    second = admin.get(older)
    assert second.status_code == 200, second.text
    shown = [i for i in ids if f'id="report-{i}"' in second.text]
    assert shown == sorted(ids)[:3]
    assert 'id="reports-older"' not in second.text
    assert admin.get("/problems/add-tensors/reports?after=forged").status_code == 422
