"""/api/v1/auth: registration, the OAuth2 password flow, token listing and revocation, throttling."""

from __future__ import annotations

import uuid
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.models import PremiumGrant, User
from app.kit.db import utcnow
from tests.app.conftest import PASSWORD
from tests.app.statements import sent_statements


def token_for(client: TestClient, email: str, password: str = PASSWORD) -> object:
    return client.post("/api/v1/auth/token", data={"username": email, "password": password})


def test_register_then_token_then_me(app, db) -> None:
    client = TestClient(app)
    email = f"reg-{uuid.uuid4().hex[:8]}@example.com"
    created = client.post("/api/v1/auth/register", json={"email": email, "password": PASSWORD})
    assert created.status_code == 201
    assert created.json()["role"] == "student" and created.json()["email"] == email
    response = token_for(client, email)
    assert response.status_code == 200 and response.json()["token_type"] == "bearer"
    token = response.json()["access_token"]
    me = client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["email"] == email and me.json()["premium"] is False


def test_register_errors(app, db, student) -> None:
    client = TestClient(app)
    cases = [
        ({"email": student.email, "password": PASSWORD}, 409, "email_taken"),
        ({"email": "not-an-email", "password": PASSWORD}, 422, "invalid_input"),
        ({"email": "weak@example.com", "password": "short"}, 422, "invalid_input"),
        ({"email": "weak@example.com", "password": "password"}, 422, "invalid_input"),
        ({"email": "nopass@example.com"}, 422, "invalid_input"),
    ]
    for body, status, code in cases:
        response = client.post("/api/v1/auth/register", json=body)
        assert response.status_code == status, body
        assert response.json()["error"] == code and response.json()["detail"]
    bad_json = client.post(
        "/api/v1/auth/register", content=b'{"email": ', headers={"Content-Type": "application/json"}
    )
    assert bad_json.status_code == 422 and bad_json.json()["error"] == "invalid_input"


def test_wrong_password_is_401_and_guessing_is_throttled(app, student) -> None:
    client = TestClient(app)
    limit = app.state.settings.login_max_failures_per_email
    for _ in range(limit):
        wrong = token_for(client, student.email, "not the password")
        assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_credentials"
    throttled = token_for(client, student.email)  # even the right password waits now
    assert throttled.status_code == 429 and throttled.json()["error"] == "rate_limited"
    assert int(throttled.headers["Retry-After"]) > 60


def test_tokens_are_listed_and_work_until_revoked(student) -> None:
    listed = student.get("/api/v1/auth/tokens").json()["items"]
    assert len(listed) == 1 and student.token.startswith(listed[0]["prefix"])
    assert student.token not in str(listed)
    assert student.get("/api/v1/submissions").status_code == 200
    assert student.delete(f"/api/v1/auth/tokens/{listed[0]['id']}").status_code == 204
    for url in ("/api/v1/submissions", "/api/v1/auth/me"):
        response = student.get(url)
        assert response.status_code == 401 and response.json()["error"] == "invalid_token"
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_cannot_revoke_someone_elses_token(student, make_account) -> None:
    other = make_account()
    other_id = other.get("/api/v1/auth/tokens").json()["items"][0]["id"]
    response = student.delete(f"/api/v1/auth/tokens/{other_id}")
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert other.get("/api/v1/auth/me").status_code == 200


def test_bad_tokens_are_refused(app, db) -> None:
    client = TestClient(app)
    for header in ("Bearer td_unknown", "Bearer ", "Basic abc", "Bearer " + "x" * 300):
        response = client.get("/api/v1/submissions", headers={"Authorization": header})
        assert response.status_code == 401, header
        assert response.json()["error"] in ("invalid_token", "login_required")
    assert client.get("/api/v1/submissions").status_code == 401


def test_a_token_brings_every_grant_of_its_owner_in_one_query(member, db) -> None:
    """The owner's grants come with the token's lookup (one query, a row per grant), all of them:
    an expired grant sorted first must not hide the live one."""
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == member.email)).one()
        now = utcnow()
        session.add(PremiumGrant(user_id=user.id, starts_at=now - timedelta(days=60),
                                 expires_at=now - timedelta(days=30), source="admin"))  # fmt: skip
    with sent_statements(db.engine) as sent:
        me = member.get("/api/v1/auth/me")
    assert me.status_code == 200 and me.json()["premium"] is True
    assert [s for s in sent if "FROM api_tokens" in s and "premium_grants" in s], sent
    assert not [s for s in sent if s.startswith("SELECT premium_grants")], sent
