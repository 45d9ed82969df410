"""The gates around solutions, on every route: Premium problems' solutions stay Premium, course
assignments hold them from students until the deadline (extensions count), a moderator's hide
removes a post from everything but its author's view, and the editorial opens like solutions."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.courses import assignments as course_assignments
from app.courses import enrolment
from app.courses.models import Assignment
from app.kit.db import Database, utcnow
from app.problems.models import Problem, ProblemVersion
from app.solutions.moderation import TARGET
from tests.app.api_v1.conftest import ApiAccount
from tests.app.conftest import Browser
from tests.app.solutions.conftest import publish, solve

EDITORIAL = "## Approaches\n\nBroadcasting: $O(n)$.\n\n## Pitfalls\n\n`a - b` is not addition.\n"


def routes(slug: str, solution_id: int) -> list[tuple[str, str]]:
    """Every API route that shows a solution or its parts, as (method, url)."""
    return [
        ("get", f"/api/v1/problems/{slug}/solutions"),
        ("get", f"/api/v1/problems/{slug}/solutions?sort=newest"),
        ("get", f"/api/v1/solutions/{solution_id}"),
        ("get", f"/api/v1/solutions/{solution_id}/comments"),
        ("put", f"/api/v1/solutions/{solution_id}/vote"),
        ("post", f"/api/v1/solutions/{solution_id}/comments"),
    ]


def pages(slug: str, solution_id: int) -> list[str]:
    return [f"/problems/{slug}/solutions", f"/solutions/{solution_id}", f"/solutions/{solution_id}/compare"]


def call(account: ApiAccount, method: str, url: str) -> Any:
    return getattr(account, method)(url, **({"json": {"body": "hi"}} if method == "post" else {}))


def test_premium_problems_solutions_stay_premium(
    member: ApiAccount, make_account: Callable[..., ApiAccount], app: FastAPI
) -> None:
    view = solve(member, "scale-rows")
    assert view["verdict"] == "accepted", view
    created = publish(member, "scale-rows", view["id"])
    assert created.status_code == 201, created.text
    sid = created.json()["id"]
    free = make_account()
    for method, url in [*routes("scale-rows", sid), ("post", "/api/v1/problems/scale-rows/give-up"),
                        ("get", "/api/v1/problems/scale-rows/solutions/status"),
                        ("get", "/api/v1/problems/scale-rows/editorial")]:  # fmt: skip
        refused = call(free, method, url)
        assert refused.status_code == 403 and refused.json()["error"] == "premium_required", (method, url)
    page = Browser(app)
    assert page.signup().status_code == 303
    for url in pages("scale-rows", sid):
        shown = page.get(url)
        assert shown.status_code == 403 and "Premium" in shown.text, url
    # With Premium, a solver reads them.
    other = make_account(premium_days=30)
    solve(other, "scale-rows")
    assert [s["id"] for s in other.get("/api/v1/problems/scale-rows/solutions").json()["items"]] == [sid]


def _course_with_held_assignment(
    db: Database, instructor: ApiAccount, student: ApiAccount, due_in: timedelta
) -> int:
    from app.accounts.models import User

    with db.transaction() as session:
        teacher = session.scalars(select(User).where(User.email == instructor.email)).one()
        learner = session.scalars(select(User).where(User.email == student.email)).one()
        course = enrolment.create_course(session, teacher, "Deep learning 101")
        enrolment.join(session, learner, course.join_code, utcnow())
        now = utcnow()
        assignment = course_assignments.create_assignment(
            session, course, title="Week 1", problem_slugs=["add-tensors"],
            release_at=now - timedelta(days=1), due_at=now + due_in,
        )  # fmt: skip
        return assignment.id


def test_an_assignment_holds_solutions_until_its_deadline_extension_included(
    published: tuple[ApiAccount, dict[str, Any]], make_account: Callable[..., ApiAccount], db: Database,
    app: FastAPI,
) -> None:  # fmt: skip
    _author, solution = published
    instructor = make_account(role="instructor")
    student = make_account()
    solve(student, "add-tensors")
    assignment_id = _course_with_held_assignment(db, instructor, student, timedelta(days=2))
    list_url = "/api/v1/problems/add-tensors/solutions"
    assert student.get(list_url).status_code == 200  # not held: the instructor has not chosen to
    assert (
        student.put(f"/api/v1/assignments/{assignment_id}/solution-hold", json={"held": True}).status_code
        == 404
    )
    held = instructor.put(f"/api/v1/assignments/{assignment_id}/solution-hold", json={"held": True})
    assert held.status_code == 200 and held.json() == {"assignment_id": assignment_id, "held": True}
    for method, url in routes("add-tensors", solution["id"]):
        refused = call(student, method, url)
        assert refused.status_code == 403 and refused.json()["error"] == "solutions_locked", (method, url)
    status = student.get(f"{list_url}/status").json()
    assert status["reason"] == "held" and status["held_until"]
    assert student.post("/api/v1/problems/add-tensors/give-up").status_code == 403  # no giving up either
    # Another learner outside the course is not held.
    outsider = make_account()
    solve(outsider, "add-tensors")
    assert outsider.get(list_url).status_code == 200
    # After the deadline: open.
    with db.transaction() as session:
        assignment = session.get(Assignment, assignment_id)
        assert assignment is not None
        assignment.due_at = utcnow() - timedelta(minutes=1)
    assert student.get(list_url).status_code == 200
    # An extension moves the student's deadline: held again until it.
    from app.accounts.models import User

    with db.transaction() as session:
        assignment = session.get(Assignment, assignment_id)
        learner = session.scalars(select(User).where(User.email == student.email)).one()
        assert assignment is not None
        course_assignments.set_extension(
            session, assignment, learner.id, due_at=utcnow() + timedelta(hours=3)
        )
    assert student.get(list_url).json()["error"] == "solutions_locked"
    # Released by the instructor: open again.
    assert (
        instructor.put(f"/api/v1/assignments/{assignment_id}/solution-hold", json={"held": False}).json()[
            "held"
        ]
        is False
    )
    assert student.get(list_url).status_code == 200


def test_a_hidden_solution_or_comment_vanishes_from_every_route_but_its_authors_view(
    published: tuple[ApiAccount, dict[str, Any]], make_account: Callable[..., ApiAccount], db: Database,
    app: FastAPI,
) -> None:  # fmt: skip
    author, solution = published
    sid = solution["id"]
    reader = make_account()
    solve(reader, "add-tensors")
    comment = reader.post(f"/api/v1/solutions/{sid}/comments", json={"body": "A comment to hide"}).json()
    with db.transaction() as session:
        info = TARGET.describe(session, "solution_comment", comment["id"])
        assert info is not None and info.problem_slug == "add-tensors" and info.hidden is False
        assert info.excerpt == "A comment to hide" and info.url == f"/solutions/{sid}#comment-{comment['id']}"
        TARGET.set_hidden(session, "solution_comment", comment["id"], True)
    assert reader.get(f"/api/v1/solutions/{sid}").json()["comments"] == 0
    assert author.get(f"/api/v1/solutions/{sid}/comments").json()["items"] == []
    mine = reader.get(f"/api/v1/solutions/{sid}/comments").json()["items"]
    assert [c["hidden"] for c in mine] == [True]  # its author sees it, marked
    with db.transaction() as session:
        info = TARGET.describe(session, "solution", sid)
        assert info is not None and info.author_id is not None and info.url == f"/solutions/{sid}"
        TARGET.set_hidden(session, "solution", sid, True)
        assert TARGET.describe(session, "solution", sid).hidden is True  # type: ignore[union-attr]
    for method, url in routes("add-tensors", sid):
        response = call(reader, method, url)
        if url.endswith("/solutions") or "sort=" in url:
            assert response.status_code == 200 and response.json()["items"] == [], url
        else:
            assert response.status_code == 404, (method, url)
    page = Browser(app)
    assert page.login(reader.email).status_code == 303
    assert "A comment to hide" not in page.get("/problems/add-tensors/solutions").text
    listing = page.get("/problems/add-tensors/solutions").text
    assert 'id="no-solutions"' in listing and "tag=broadcasting" not in listing  # nor its tag's count
    for url in pages("add-tensors", sid)[1:]:
        assert page.get(url).status_code == 404, url
    own = author.get(f"/api/v1/solutions/{sid}").json()
    assert own["hidden"] is True
    author_page = Browser(app)
    assert author_page.login(author.email).status_code == 303
    assert "hidden by a moderator" in author_page.get(f"/solutions/{sid}").text
    with db.transaction() as session:
        TARGET.set_hidden(session, "solution", sid, False)
        TARGET.set_hidden(session, "solution_comment", comment["id"], False)
    assert reader.get(f"/api/v1/solutions/{sid}").json()["comments"] == 1
    assert "tag=broadcasting" in page.get("/problems/add-tensors/solutions").text


@pytest.fixture
def with_editorial(db: Database) -> Iterator[str]:
    """add-tensors' live version with an editorial.md (restored afterwards)."""
    with db.transaction() as session:
        problem = session.scalars(select(Problem).where(Problem.slug == "add-tensors")).one()
        version = session.get(ProblemVersion, problem.current_version_id)
        assert version is not None
        before = dict(version.files)
        version.files = before | {"editorial.md": EDITORIAL}
    yield EDITORIAL
    with db.transaction() as session:
        problem = session.scalars(select(Problem).where(Problem.slug == "add-tensors")).one()
        version = session.get(ProblemVersion, problem.current_version_id)
        assert version is not None
        version.files = before


def test_the_editorial_opens_after_solving_or_giving_up_and_can_be_hidden(
    with_editorial: str, make_account: Callable[..., ApiAccount], db: Database
) -> None:
    learner = make_account()
    url = "/api/v1/problems/add-tensors/editorial"
    assert learner.get(url).json()["error"] == "solutions_locked"
    assert learner.get("/api/v1/problems/add-tensors/solutions/status").json()["editorial"] is True
    assert learner.post("/api/v1/problems/add-tensors/give-up").status_code == 200
    body = learner.get(url).json()
    assert body["body"] == with_editorial and "<math" in body["body_html"] and "<h2" in body["body_html"]
    with db.transaction() as session:
        problem = session.scalars(select(Problem).where(Problem.slug == "add-tensors")).one()
        info = TARGET.describe(session, "editorial", problem.id)
        assert info is not None and info.url == "/problems/add-tensors/editorial"
        TARGET.set_hidden(session, "editorial", problem.id, True)
    assert learner.get(url).status_code == 404
    assert learner.get("/api/v1/problems/add-tensors/solutions/status").json()["editorial"] is False
    with db.transaction() as session:
        TARGET.set_hidden(session, "editorial", problem.id, False)
    assert learner.get(url).status_code == 200
