"""/api/v1/submissions: submit and wait, ownership, listing, idempotency, limits and errors."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app.accounts.models import PremiumGrant
from app.kit.db import Database, utcnow
from app.kit.runner import JudgeRunner
from app.kit.settings import Settings
from app.main import create_app
from app.submissions.judging import judge_submission
from app.submissions.models import Submission
from tests.app.api_v1.conftest import ApiAccount, create_account
from tests.app.conftest import settings_for
from tests.app.statements import sent_statements


def test_submit_then_fetch(student, code_of) -> None:
    created = student.submit("add-tensors", code_of("add-tensors"))
    assert created.status_code == 202
    body = created.json()
    assert body["status"] in ("queued", "running") and body["verdict"] is None
    assert created.headers["Location"] == f"/api/v1/submissions/{body['id']}"
    done = student.get(f"/api/v1/submissions/{body['id']}", params={"wait": "true", "timeout": 30})
    assert done.status_code == 200
    result = done.json()
    assert result["status"] == "finished" and result["verdict"] == "accepted"
    assert (result["passed"], result["total"]) == (3, 3) and len(result["tests"]) == 3
    assert {"name", "status", "message", "time_ms"} <= set(result["tests"][0])
    assert result["created_at"] and result["finished_at"]


def test_wait_answers_with_the_verdict(student, code_of) -> None:
    response = student.submit(
        "add-tensors", code_of("add-tensors", "mutants/subtracts.py"), "run", wait="true"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["verdict"] == "wrong_answer" and body["mode"] == "run"
    assert [t["name"] for t in body["tests"]] == ["example"] and body["tests"][0]["status"] == "failed"
    assert body["verdict_label"] == "Differs from the reference"  # Run compares; it never says Wrong Answer


def test_every_failed_case_says_what_failed_without_a_hidden_value(student, code_of) -> None:
    """The failure vocabulary in /api/v1: kind, title, tolerance and largest error; hidden cases
    numbered and named for what they exercise; the message's code spans as <code>."""
    body = student.submit("add-tensors", code_of("add-tensors", "mutants/subtracts.py"), wait="true").json()
    assert body["verdict"] == "wrong_answer" and body["verdict_label"] == "Wrong Answer"
    assert body["message_html"] == body["message"] == "3 cases failed."
    tests = {t["name"]: t for t in body["tests"]}
    hidden = tests["negative_values"]
    assert hidden["label"] == "hidden 1 · negative values" and tests["matrix"]["label"] == "hidden 2 · matrix"
    assert hidden["failure"] == {
        "kind": "values", "title": "Values beyond tolerance", "rule": None, "sentence": None,
        "property": None, "rtol": 0.0001, "atol": 0.0001, "max_error": 14.0, "input": None,
    }  # fmt: skip
    assert hidden["message"] == (
        "Values beyond tolerance: 3 of 3 elements differ; the largest error is 14 at index [1] "
        "(rtol=0.0001, atol=0.0001)."
    )
    assert "-2.0" not in hidden["message"] and hidden["expected"] is None  # its expected value: [0., -2., 3.]
    assert tests["example"]["label"] == "example" and tests["example"]["failure"]["kind"] == "values"
    assert tests["example"]["expected"] == "tensor([4.0, 6.0])"
    passed = student.submit("add-tensors", code_of("add-tensors"), wait="true").json()["tests"][0]
    assert passed["failure"] is None and passed["message_html"] == ""


def test_free_user_gets_no_verdict_on_a_premium_problem(student, code_of) -> None:
    for mode in ("run", "submit"):
        response = student.submit("scale-rows", code_of("scale-rows"), mode, wait="true")
        assert response.status_code == 403 and response.json()["error"] == "premium_required"
    assert student.get("/api/v1/submissions").json()["items"] == []


def test_expiry_takes_effect_without_a_restart(member, db, code_of) -> None:
    first = member.submit("scale-rows", code_of("scale-rows"), wait="true").json()
    assert first["verdict"] == "accepted"
    with db.transaction() as session:  # the grant ran out a second ago
        session.execute(update(PremiumGrant).values(expires_at=utcnow() - timedelta(seconds=1)))
    refused = member.submit("scale-rows", code_of("scale-rows"))
    assert refused.status_code == 403 and refused.json()["error"] == "premium_required"
    problem = member.get("/api/v1/problems/scale-rows").json()
    assert (
        problem["locked"] is True
        and problem["starter_code"] is None
        and problem["reference_solution"] is None
    )
    assert member.get(f"/api/v1/submissions/{first['id']}").json()["verdict"] == "accepted"  # history stays
    assert [s["id"] for s in member.get("/api/v1/submissions").json()["items"]] == [first["id"]]


def test_other_peoples_submissions_are_404(student, make_account, code_of) -> None:
    sid = student.submit("add-tensors", code_of("add-tensors"), wait="true").json()["id"]
    other = make_account()
    for response in (other.get(f"/api/v1/submissions/{sid}"), other.get(f"/api/v1/submissions/{sid + 999}")):
        assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert other.get("/api/v1/submissions").json()["items"] == []


def test_list_filters_and_pages(student, code_of) -> None:
    ok = student.submit("add-tensors", code_of("add-tensors"), wait="true").json()["id"]
    wrong = student.submit("add-tensors", code_of("add-tensors", "mutants/subtracts.py"), wait="true").json()[
        "id"
    ]
    other = student.submit("sum-of-squares", "def sum_of_squares(x):\n    return 0\n", wait="true").json()[
        "id"
    ]
    everything = student.get("/api/v1/submissions").json()
    assert [s["id"] for s in everything["items"]] == [other, wrong, ok]
    by_problem = student.get("/api/v1/submissions", params={"problem": "add-tensors"}).json()["items"]
    assert [s["id"] for s in by_problem] == [wrong, ok]
    accepted = student.get("/api/v1/submissions", params={"verdict": "accepted"}).json()["items"]
    assert [s["id"] for s in accepted] == [ok]
    page = student.get("/api/v1/submissions", params={"limit": 2}).json()
    assert [s["id"] for s in page["items"]] == [other, wrong]
    last = student.get(page["next"]).json()
    assert [s["id"] for s in last["items"]] == [ok]
    assert last["next"] is None  # the last page says so, even when it is exactly full
    full = student.get("/api/v1/submissions", params={"limit": 3}).json()
    assert len(full["items"]) == 3 and full["next"] is None
    assert student.get("/api/v1/submissions", params={"verdict": "great"}).status_code == 422
    assert student.get("/api/v1/submissions", params={"problem": "nope"}).status_code == 404


def test_idempotency_key_returns_the_first_submission(student, code_of) -> None:
    body = {"problem": "add-tensors", "code": code_of("add-tensors"), "mode": "submit"}
    first = student.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "retry-1"})
    again = student.post("/api/v1/submissions?wait=true", json=body, headers={"Idempotency-Key": "retry-1"})
    assert first.status_code == 202 and again.status_code == 200
    assert again.json()["id"] == first.json()["id"] and again.headers["Idempotent-Replayed"] == "true"
    assert len(student.get("/api/v1/submissions").json()["items"]) == 1
    changed = student.post(
        "/api/v1/submissions", json=body | {"mode": "run"}, headers={"Idempotency-Key": "retry-1"}
    )
    assert changed.status_code == 409 and changed.json()["error"] == "conflict"
    bad_key = student.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "spaces are not ok"})
    assert bad_key.status_code == 422
    assert len(student.get("/api/v1/submissions").json()["items"]) == 1


class JudgeAtOnce:
    """Judges each submission the moment it is dispatched, before the route has answered."""

    def __init__(self, db: Database, runner: JudgeRunner) -> None:
        self.db, self.runner = db, runner

    def submit(self, submission_id: int) -> None:
        assert judge_submission(self.db, self.runner, submission_id)

    def shutdown(self) -> None:
        pass


def test_a_post_without_wait_answers_the_submission_as_stored(seeded, runner, code_of) -> None:
    """202 and ``queued`` however soon the verdict comes: the answer is the row this request
    stored, not whatever the judge recorded before the answer went out. Waiting, or replaying a
    finished one, answers the verdict with 200."""
    app = create_app(settings_for(seeded.url), database=seeded, runner=runner,
                     dispatcher=JudgeAtOnce(seeded, runner))  # fmt: skip
    with TestClient(app) as client:
        account = ApiAccount(*create_account(seeded), client)
        body = {"problem": "add-tensors", "code": code_of("add-tensors"), "mode": "submit"}
        first = account.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "once"})
        assert first.status_code == 202 and first.json()["status"] == "queued", first.text
        assert account.get(first.headers["Location"]).json()["verdict"] == "accepted"
        replay = account.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "once"})
        assert replay.status_code == 200 and replay.json()["verdict"] == "accepted"
        waited = account.post("/api/v1/submissions?wait=true", json=body)
        assert waited.status_code == 200 and waited.json()["verdict"] == "accepted"


def test_a_retry_is_answered_with_its_submission_past_the_rate_limit(seeded, runner, code_of) -> None:
    limits = {"api_submissions_per_minute": 2}
    app = create_app(
        Settings(**(settings_for(seeded.url).model_dump() | limits)), database=seeded, runner=runner
    )
    with TestClient(app) as client:
        account = ApiAccount(*create_account(seeded), client)
        body = {"problem": "add-tensors", "code": code_of("add-tensors"), "mode": "submit"}
        made = [
            account.post("/api/v1/submissions?wait=true", json=body, headers={"Idempotency-Key": f"k{n}"})
            for n in range(2)
        ]
        assert [r.status_code for r in made] == [200, 200]
        retry = account.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "k0"})
        assert retry.status_code == 200 and retry.json()["id"] == made[0].json()["id"]
        assert retry.headers["Idempotent-Replayed"] == "true"
        changed = account.post(
            "/api/v1/submissions", json=body | {"mode": "run"}, headers={"Idempotency-Key": "k1"}
        )
        assert changed.status_code == 409
        new = account.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "k2"})
        assert new.status_code == 429 and new.json()["error"] == "rate_limited"


def test_a_retry_is_answered_with_its_submission_after_premium_ran_out(member, db, code_of) -> None:
    body = {"problem": "scale-rows", "code": code_of("scale-rows"), "mode": "submit"}
    first = member.post("/api/v1/submissions?wait=true", json=body, headers={"Idempotency-Key": "p1"})
    assert first.status_code == 200
    with db.transaction() as session:
        session.execute(update(PremiumGrant).values(expires_at=utcnow() - timedelta(seconds=1)))
    retry = member.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "p1"})
    assert retry.status_code == 200 and retry.json()["id"] == first.json()["id"]
    assert retry.headers["Idempotent-Replayed"] == "true"
    new = member.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "p2"})
    assert new.status_code == 403 and new.json()["error"] == "premium_required"


def test_a_new_submission_with_a_key_reads_no_earlier_one(student, db, code_of) -> None:
    """The key is looked up only when the insert finds it taken (or a replay is answered
    differently): a new submission sends no lookup by key."""
    body = {"problem": "add-tensors", "code": code_of("add-tensors"), "mode": "run"}
    with sent_statements(db.engine) as sent:
        new = student.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "n1"})
    assert new.status_code == 202
    assert any(s.startswith("INSERT INTO submissions") for s in sent), sent
    by_key = [s for s in sent if s.startswith("SELECT") and "idempotency_key =" in s.partition(" WHERE ")[2]]
    assert not by_key, by_key
    retry = student.post("/api/v1/submissions", json=body, headers={"Idempotency-Key": "n1"})
    assert retry.json()["id"] == new.json()["id"] and retry.headers["Idempotent-Replayed"] == "true"


def test_errors_have_one_shape_and_the_right_status(app, student) -> None:
    limit = app.state.settings.max_code_bytes
    cases = [
        ({"problem": "add-tensors", "code": "#" * (limit + 1)}, 413, "payload_too_large"),
        ({"problem": "no-such-problem", "code": "x = 1"}, 404, "not_found"),
        ({"problem": "add-tensors", "code": "   "}, 422, "invalid_input"),
        ({"problem": "add-tensors", "code": "x = '\x00'"}, 422, "invalid_input"),
        ({"problem": "add-tensors", "code": "x = 1", "mode": "explode"}, 422, "invalid_input"),
        ({"problem": "add-tensors"}, 422, "invalid_input"),
    ]
    for body, status, code in cases:
        response = student.post("/api/v1/submissions", json=body)
        assert response.status_code == status, body
        assert set(response.json()) == {"error", "detail"} and response.json()["error"] == code
    surrogate = student.post(
        "/api/v1/submissions",
        content=b'{"problem": "add-tensors", "code": "x = \\"\\ud800\\""}',
        headers={"Content-Type": "application/json"},
    )
    assert surrogate.status_code == 422
    bad_json = student.post(
        "/api/v1/submissions", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert bad_json.status_code == 422 and bad_json.json()["error"] == "invalid_input"
    anonymous = TestClient(app).post("/api/v1/submissions", json={"problem": "add-tensors", "code": "x = 1"})
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "invalid_token"
    assert student.get("/api/v1/submissions").json()["items"] == []


def test_posting_checks_the_token_as_every_route_does_and_stores_nothing_without_one(
    app, student, db, code_of
) -> None:
    # The route looks the token's owner up in its own worker thread (app.accounts.deps.TokenToCheck):
    # the same answers as the routes whose dependency looks it up first.
    body = {"problem": "add-tensors", "code": code_of("add-tensors")}
    client = TestClient(app)
    for header in ("Bearer td_unknown", "Bearer ", "Basic abc", "Bearer " + "x" * 300, None):
        headers = {"Authorization": header} if header is not None else {}
        response = client.post("/api/v1/submissions", json=body, headers=headers)
        assert response.status_code == 401 and response.json()["error"] == "invalid_token", header
        assert response.headers["WWW-Authenticate"] == "Bearer"
    token_id = student.get("/api/v1/auth/tokens").json()["items"][0]["id"]
    other = student.submit("add-tensors", code_of("add-tensors"), wait="true")
    assert other.status_code == 200
    assert student.delete(f"/api/v1/auth/tokens/{token_id}").status_code == 204
    revoked = student.post("/api/v1/submissions", json=body)
    assert revoked.status_code == 401 and revoked.json()["error"] == "invalid_token"
    with db.sessionmaker() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 1  # the one before


def test_rate_limits_answer_429_with_retry_after(seeded, runner, db, code_of) -> None:
    limits = {"api_submissions_per_minute": 2, "api_requests_per_minute": 8}
    settings = Settings(**(settings_for(seeded.url).model_dump() | limits))
    app = create_app(settings, database=seeded, runner=runner)
    with TestClient(app) as client:
        email, token = create_account(seeded)
        account = ApiAccount(email, token, client)
        for _ in range(2):
            assert account.submit("add-tensors", code_of("add-tensors"), wait="true").status_code == 200
        limited = account.submit("add-tensors", code_of("add-tensors"))
        assert limited.status_code == 429 and limited.json()["error"] == "rate_limited"
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
        statuses = [account.get("/api/v1/auth/me").status_code for _ in range(6)]
        assert statuses[:5] == [200] * 5 and statuses[5] == 429  # 8 requests a minute in all


def test_custom_mode_takes_an_input_object(student, code_of) -> None:
    body = {"problem": "add-tensors", "code": code_of("add-tensors"), "mode": "custom",
            "input": {"a": {"tensor": [1.0, 1.0]}, "b": {"tensor": [2.0, 5.0]}}}  # fmt: skip
    response = student.post("/api/v1/submissions", json=body, params={"wait": "true", "timeout": 60})
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["mode"] == "custom" and view["verdict"] == "accepted"
    assert "[3.0, 6.0]" in view["tests"][0]["expected"] == view["tests"][0]["actual"]
    # add-tensors' one rule is checked only by its own case, on its own data: the result says so
    assert view["how_rules_elsewhere"] == ["inputs-not-modified"]
    assert view["message"].endswith("How-rules (inputs-not-modified) are checked by Run and Submit.")


def test_custom_mode_refuses_bad_input_with_422(student, code_of) -> None:
    body = {"problem": "add-tensors", "code": code_of("add-tensors"), "mode": "custom",
            "input": {"a": {"tensor": [1.0], "dtype": "float99"}}}  # fmt: skip
    response = student.post("/api/v1/submissions", json=body)
    assert response.status_code == 422
    assert "input.a.dtype" in response.json()["detail"]
    missing = student.post("/api/v1/submissions", json={**body, "input": None})
    assert missing.status_code == 422 and "needs an input" in missing.json()["detail"]
    run_with_input = student.post("/api/v1/submissions", json={**body, "mode": "run"})
    assert run_with_input.status_code == 422
