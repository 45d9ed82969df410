"""Filing and reading test reports through /api/v1 on the fixture bank: what may be reported, the
Premium gate, hidden cases, the rate limit, the token scopes, and ids nobody else can read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts import premium, tokens
from app.accounts.models import User
from app.kit.db import Database, utcnow
from app.reports.models import TestReport
from tests.app.api_v1.conftest import ApiAccount

WRONG_SCALE_ROWS = "def scale_rows(x, s):\n    return x * 2\n"
WRONG_ADD = "def add(a, b):\n    return a - b\n"


def judged(account: ApiAccount, slug: str, code: str, mode: str = "submit") -> dict[str, Any]:
    response = account.submit(slug, code, mode, wait="true", timeout=60)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def failed_case(view: dict[str, Any], public: bool) -> str:
    return next(t["name"] for t in view["tests"] if t["status"] != "passed" and t["public"] is public)


def report(
    account: ApiAccount, submission_id: int, case: str, note: str = "The tolerance is too strict."
) -> Any:
    return account.post(f"/api/v1/submissions/{submission_id}/reports", json={"case": case, "note": note})


def token_with(db: Database, email: str, scopes: list[str]) -> str:
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        _row, plain = tokens.create_token(session, user, "scoped", utcnow(), scopes=scopes)
    return plain


def test_a_learner_reports_a_hidden_case_and_reads_it_back_without_its_expected_value(
    student: ApiAccount,
) -> None:
    view = judged(student, "add-tensors", WRONG_ADD)
    assert view["verdict"] == "wrong_answer"
    hidden = failed_case(view, public=False)
    created = report(student, view["id"], hidden)
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["case"] == hidden and body["status"] == "open" and body["reply"] == ""
    assert body["case_result"]["public"] is False
    assert body["case_result"]["expected"] is None and body["case_result"]["actual"] is None
    # The reporter is not staff: no code, no submission, no email attached.
    assert body["submission"] is None and body["code"] is None and body["reporter"] is None
    again = student.get(body["url"])
    assert again.status_code == 200 and again.json() == body
    mine = student.get("/api/v1/reports").json()
    assert [r["id"] for r in mine["items"]] == [body["id"]]


def test_what_cannot_be_reported(student: ApiAccount, make_account: Callable[..., ApiAccount]) -> None:
    view = judged(student, "add-tensors", WRONG_ADD)
    passed = judged(
        student, "sum-of-squares", "def sum_of_squares(x):\n    return float((x ** 2).sum().item())\n"
    )
    assert passed["verdict"] == "accepted", passed
    cases = [
        (view["id"], "no-such-case", "A note", 422),
        (view["id"], failed_case(view, public=False), "   ", 422),  # a note is required
        (view["id"], failed_case(view, public=False), "x\x00y", 422),
        (passed["id"], passed["tests"][0]["name"], "A passing case", 422),
        (2**31 - 1, "example", "A missing submission", 404),
    ]
    for submission_id, case, note, status in cases:
        response = report(student, submission_id, case, note)
        assert response.status_code == status, (case, note, response.text)
    # Somebody else's submission answers like a missing one.
    stranger = make_account()
    assert report(stranger, view["id"], failed_case(view, public=False)).status_code == 404
    # The same case twice is a conflict, not a second report.
    first = report(student, view["id"], failed_case(view, public=True))
    assert first.status_code == 201, first.text
    assert report(student, view["id"], failed_case(view, public=True)).status_code == 409


def test_a_learner_who_lost_premium_reads_no_premium_tests_through_a_report(
    member: ApiAccount, db: Database
) -> None:
    view = judged(member, "scale-rows", WRONG_SCALE_ROWS)
    public = failed_case(view, public=True)
    created = report(member, view["id"], public)
    assert created.status_code == 201, created.text
    assert created.json()["case_result"]["expected"] is not None  # a Premium member reads the public case
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == member.email)).one()
        premium.revoke_premium(session, user, utcnow())
    after = member.get(created.json()["url"])
    assert after.status_code == 200
    assert after.json()["case_result"] is None  # no expected, no actual, no message
    listed = member.get("/api/v1/reports").json()["items"]
    assert [r["case_result"] for r in listed] == [None]
    # Nor can they file another report on the problem they may no longer work on.
    refused = report(member, view["id"], failed_case(view, public=False))
    assert refused.status_code == 403 and refused.json()["error"] == "premium_required"


def test_reports_are_rate_limited(
    make_account: Callable[..., ApiAccount], app: FastAPI, db: Database
) -> None:
    learner = make_account()
    per_minute = app.state.settings.reports_per_minute
    ids = [judged(learner, "add-tensors", WRONG_ADD, mode="run")["id"] for _ in range(per_minute + 1)]
    # run mode has only the public case: one report per submission
    answers = [report(learner, i, "example").status_code for i in ids]
    assert answers[:per_minute] == [201] * per_minute
    assert answers[per_minute] == 429
    with db.transaction() as session:
        assert len(session.scalars(select(TestReport)).all()) >= per_minute


def test_nobody_else_reads_a_report_however_they_ask(
    student: ApiAccount, make_account: Callable[..., ApiAccount], app: FastAPI, db: Database
) -> None:
    view = judged(student, "add-tensors", WRONG_ADD)
    created = report(student, view["id"], failed_case(view, public=False))
    assert created.status_code == 201, created.text
    report_id = created.json()["id"]
    missing = {"error": "not_found", "detail": f"There is no report #{report_id}."}
    other_learner = make_account()
    instructor = make_account(role="instructor")  # teaches no course that uses the problem
    for who in (other_learner, instructor):
        got = who.get(f"/api/v1/reports/{report_id}")
        assert (got.status_code, got.json()) == (404, missing)
        answer = who.post(f"/api/v1/reports/{report_id}/answer", json={"status": "fixed", "reply": "no"})
        assert answer.status_code == 404
        listed = who.get("/api/v1/reports", params={"problem": "add-tensors"})
        assert listed.status_code == 200 and listed.json()["items"] == []
        assert who.get("/api/v1/reports").json()["items"] == []
    # Guessing ids: neighbours of a real one answer exactly like missing ones.
    for guess in [g for g in (report_id - 1, report_id + 1, 2**31 - 1) if g >= 1]:
        got = other_learner.get(f"/api/v1/reports/{guess}")
        assert got.status_code == 404 and got.json()["error"] == "not_found"
    # Without a token, and with a token lacking the route's scope.
    bare = TestClient(app)
    assert bare.get(f"/api/v1/reports/{report_id}").status_code == 401
    submit_only = token_with(db, student.email, ["submit"])
    got = student.client.get(
        f"/api/v1/reports/{report_id}", headers={"Authorization": f"Bearer {submit_only}"}
    )
    assert got.status_code == 403 and got.json()["error"] == "insufficient_scope"
    read_only = token_with(db, student.email, ["read"])
    filed = student.client.post(
        f"/api/v1/submissions/{view['id']}/reports",
        json={"case": failed_case(view, public=True), "note": "x"},
        headers={"Authorization": f"Bearer {read_only}"},
    )
    assert filed.status_code == 403 and filed.json()["error"] == "insufficient_scope"
    # The reporter cannot answer their own report, nor re-judge a problem they do not own.
    own = student.post(f"/api/v1/reports/{report_id}/answer", json={"status": "fixed", "reply": ""})
    assert own.status_code == 403
    assert student.post("/api/v1/problems/add-tensors/reports/rejudge").status_code == 404


@pytest.mark.parametrize("status", ["open", "not_a_bug", "fixed"])
def test_an_admin_answers_a_shipped_problems_report(
    status: str, student: ApiAccount, make_account: Callable[..., ApiAccount]
) -> None:
    view = judged(student, "add-tensors", WRONG_ADD)
    report_id = report(student, view["id"], failed_case(view, public=False)).json()["id"]
    admin = make_account(role="admin")
    seen = admin.get(f"/api/v1/reports/{report_id}").json()
    assert seen["reporter"] == student.email and seen["code"] == WRONG_ADD
    assert seen["submission"]["id"] == view["id"]
    hidden = [t for t in seen["submission"]["tests"] if not t["public"]]
    assert hidden and all(t["expected"] is None and t["actual"] is None for t in hidden)
    answered = admin.post(f"/api/v1/reports/{report_id}/answer", json={"status": status, "reply": "Thanks"})
    assert answered.status_code == 200, answered.text
    mine = student.get(f"/api/v1/reports/{report_id}").json()
    assert (mine["status"], mine["reply"]) == (status, "Thanks")
    assert mine["answered_at"] is not None
