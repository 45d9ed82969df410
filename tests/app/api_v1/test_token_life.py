"""Tokens with a life, attacked through real HTTP (uvicorn on 127.0.0.1): scopes on every
/api/v1 route, expired and revoked tokens, other users' token ids, bad requests for tokens,
last-used writes, and the account page's token list."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta

import httpx
import pytest
from sqlalchemy import select, update

from app.accounts import service, tokens
from app.accounts.models import ApiToken
from app.kit.db import Database, utcnow
from tests.app.cli.conftest import live_server
from tests.app.conftest import PASSWORD

__all__ = ["live_server"]

SCOPES = ("read", "submit", "teach")
PUBLIC = {("POST", "/api/v1/auth/register"), ("POST", "/api/v1/auth/token"), ("GET", "/api/v1/version")}
COURSE = "/api/v1/courses/{course_id}"
# Every /api/v1 route and the scope a token needs for it. A route missing here fails the table
# test: a new route must say which scope it needs.
SCOPE_OF: dict[tuple[str, str], str] = {
    ("GET", "/api/v1/auth/tokens"): "read",
    ("DELETE", "/api/v1/auth/tokens/{token_id}"): "read",
    ("GET", "/api/v1/auth/me"): "read",
    ("GET", "/api/v1/problems"): "read",
    ("GET", "/api/v1/problems/{slug}"): "read",
    ("GET", "/api/v1/problems/{slug}/hints"): "read",
    ("POST", "/api/v1/problems/{slug}/hints/next"): "submit",
    ("GET", "/api/v1/tracks"): "read",
    ("GET", "/api/v1/tracks/{slug}"): "read",
    ("POST", "/api/v1/submissions"): "submit",
    ("GET", "/api/v1/submissions"): "read",
    ("GET", "/api/v1/submissions/{submission_id}"): "read",
    ("GET", "/api/v1/authoring/problems"): "teach",
    ("POST", "/api/v1/authoring/problems"): "teach",
    ("GET", "/api/v1/authoring/problems/{slug}"): "teach",
    ("PUT", "/api/v1/authoring/problems/{slug}"): "teach",
    ("POST", "/api/v1/authoring/problems/{slug}/validate"): "teach",
    ("POST", "/api/v1/authoring/problems/{slug}/publish"): "teach",
    ("POST", "/api/v1/authoring/problems/{slug}/unpublish"): "teach",
    ("DELETE", "/api/v1/authoring/problems/{slug}/draft"): "teach",
    ("GET", "/api/v1/authoring/problems/{slug}/export"): "teach",
    ("POST", "/api/v1/authoring/import"): "teach",
    ("POST", "/api/v1/authoring/preview"): "teach",
    ("PUT", "/api/v1/authoring/problems/{slug}/site-wide"): "teach",
    ("GET", "/api/v1/authoring/problems/{slug}/owners"): "teach",
    ("POST", "/api/v1/authoring/problems/{slug}/owners"): "teach",
    ("DELETE", "/api/v1/authoring/problems/{slug}/owners/{user_id}"): "teach",
    ("GET", "/api/v1/courses/invitations"): "read",
    ("POST", "/api/v1/courses/invitations/{invitation_id}/decline"): "submit",
    ("PUT", COURSE + "/enrolment"): "teach",
    ("POST", COURSE + "/leave"): "submit",
    ("POST", "/api/v1/courses"): "teach",
    ("GET", "/api/v1/courses"): "read",
    ("POST", "/api/v1/courses/join"): "submit",
    ("GET", COURSE): "read",
    ("GET", COURSE + "/assignments"): "read",
    ("POST", COURSE + "/assignments"): "teach",
    ("POST", COURSE + "/join-code"): "teach",
    ("POST", COURSE + "/roster"): "teach",
    ("POST", COURSE + "/instructors"): "teach",
    ("PUT", COURSE + "/students/{user_id}"): "teach",
    ("GET", COURSE + "/students/{user_id}"): "teach",
    ("GET", COURSE + "/assignments/{assignment_id}"): "read",
    ("PUT", COURSE + "/assignments/{assignment_id}/extensions/{user_id}"): "teach",
    ("GET", COURSE + "/gradebook"): "teach",
    ("GET", COURSE + "/gradebook.csv"): "teach",
    ("GET", COURSE + "/gradebook.xlsx"): "teach",
    ("POST", COURSE + "/assignments/{assignment_id}/regrades"): "teach",
    ("GET", COURSE + "/assignments/{assignment_id}/similarity"): "teach",
    ("GET", COURSE + "/assignments/{assignment_id}/analytics"): "teach",
    ("GET", COURSE + "/assignments/{assignment_id}/analytics/{slug}"): "teach",
    ("POST", "/api/v1/submissions/{submission_id}/reports"): "submit",
    ("GET", "/api/v1/reports"): "read",
    ("GET", "/api/v1/reports/{report_id}"): "read",
    ("POST", "/api/v1/reports/{report_id}/answer"): "teach",
    ("POST", "/api/v1/problems/{slug}/reports/rejudge"): "teach",
    ("GET", COURSE + "/assignments/{assignment_id}/regrades/{regrade_id}"): "teach",
    ("POST", COURSE + "/assignments/{assignment_id}/regrades/{regrade_id}/apply"): "teach",
    # Solutions and editorial (app/solutions)
    ("GET", "/api/v1/problems/{slug}/solutions/status"): "read",
    ("GET", "/api/v1/problems/{slug}/solutions"): "read",
    ("POST", "/api/v1/problems/{slug}/solutions"): "submit",
    ("POST", "/api/v1/problems/{slug}/give-up"): "submit",
    ("GET", "/api/v1/problems/{slug}/editorial"): "read",
    ("GET", "/api/v1/solutions/{solution_id}"): "read",
    ("DELETE", "/api/v1/solutions/{solution_id}"): "submit",
    ("PUT", "/api/v1/solutions/{solution_id}/vote"): "submit",
    ("DELETE", "/api/v1/solutions/{solution_id}/vote"): "submit",
    ("GET", "/api/v1/solutions/{solution_id}/comments"): "read",
    ("POST", "/api/v1/solutions/{solution_id}/comments"): "submit",
    ("DELETE", "/api/v1/solution-comments/{comment_id}"): "submit",
    ("PUT", "/api/v1/assignments/{assignment_id}/solution-hold"): "teach",
    # Discussion (app/discussion) and moderation (app/moderation)
    ("GET", "/api/v1/problems/{slug}/threads"): "read",
    ("POST", "/api/v1/problems/{slug}/threads"): "submit",
    ("GET", "/api/v1/threads/{thread_id}"): "read",
    ("PATCH", "/api/v1/threads/{thread_id}"): "submit",
    ("DELETE", "/api/v1/threads/{thread_id}"): "submit",
    ("POST", "/api/v1/threads/{thread_id}/replies"): "submit",
    ("PATCH", "/api/v1/replies/{reply_id}"): "submit",
    ("DELETE", "/api/v1/replies/{reply_id}"): "submit",
    ("PUT", "/api/v1/threads/{thread_id}/marks"): "submit",
    ("PUT", "/api/v1/threads/{thread_id}/vote"): "submit",
    ("DELETE", "/api/v1/threads/{thread_id}/vote"): "submit",
    ("PUT", "/api/v1/replies/{reply_id}/vote"): "submit",
    ("DELETE", "/api/v1/replies/{reply_id}/vote"): "submit",
    ("GET", "/api/v1/threads/{thread_id}/history"): "read",
    ("GET", "/api/v1/replies/{reply_id}/history"): "read",
    ("POST", "/api/v1/moderation/reports"): "submit",
    ("GET", "/api/v1/moderation/reports"): "teach",
    ("POST", "/api/v1/moderation/reports/{report_id}/action"): "teach",
    # LTI (app/lti)
    ("POST", COURSE + "/lti/roster-sync"): "teach",
    ("GET", COURSE + "/lti/grade-syncs"): "teach",
    ("POST", COURSE + "/lti/grade-syncs/{sync_id}/resend"): "teach",
}
BODIES = {  # a body each route accepts far enough to reach its scope check
    ("POST", "/api/v1/submissions"): {"problem": "no-such-problem", "code": "x = 1", "mode": "run"},
}


def new_account(db: Database, role: str = "student") -> str:
    email = f"{role}-{uuid.uuid4().hex[:10]}@example.com"
    with db.transaction() as session:
        service.sign_up(session, email, PASSWORD, role=role)
    return email


def token_for(
    db: Database,
    email: str,
    scopes: tuple[str, ...] | None = None,
    *,
    made: datetime | None = None,
    days: int | None = None,
) -> tuple[int, str]:
    now = made or utcnow()
    with db.transaction() as session:
        user = service.get_user_by_email(session, email)
        expires = now + timedelta(days=days) if days is not None else None
        row, plain = tokens.create_token(session, user, "t", now, scopes=scopes, expires_at=expires)
        return row.id, plain


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def http(live_server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server, follow_redirects=False, timeout=60) as client:
        yield client


def _filled(path: str) -> str:
    """The path with ids and slugs that name nothing: an allowed call answers 404 or 422 and
    changes nothing (the shared test database keeps its bank as it is)."""
    return re.sub(r"\{(\w+)\}", lambda m: "no-such-problem" if m.group(1) == "slug" else str(2**31 - 1), path)


def test_every_api_route_needs_its_scope(http: httpx.Client, db: Database) -> None:
    routes = {
        (method.upper(), path)
        for path, ops in http.get("/api/openapi.json").json()["paths"].items()
        if path.startswith("/api/v1")
        for method in ops
    }
    unknown = routes - set(SCOPE_OF) - PUBLIC
    assert not unknown, f"say which scope these routes need (here and in app/): {sorted(unknown)}"
    assert not set(SCOPE_OF) - routes, "routes that no longer exist"
    teacher = new_account(db, "instructor")
    without = {s: token_for(db, teacher, tuple(x for x in SCOPES if x != s))[1] for s in SCOPES}
    only = {s: token_for(db, teacher, (s,))[1] for s in SCOPES}
    for (method, path), scope in sorted(SCOPE_OF.items()):
        url, body = _filled(path), BODIES.get((method, path), {})
        refused = http.request(method, url, headers=bearer(without[scope]), json=body)
        assert refused.status_code == 403, (method, path, refused.status_code, refused.text)
        assert refused.json()["error"] == "insufficient_scope", (method, path, refused.text)
        assert f'scope="{scope}"' in refused.headers["www-authenticate"]
        allowed = http.request(method, url, headers=bearer(only[scope]), json=body)
        assert allowed.status_code != 401, (method, path, allowed.text)
        assert "insufficient_scope" not in allowed.text, (method, path, allowed.text)


def test_a_read_token_reads_but_cannot_submit_and_a_submit_token_cannot_read(
    http: httpx.Client, db: Database, code_of
) -> None:  # type: ignore[no-untyped-def]
    email = new_account(db)
    _id, reader = token_for(db, email, ("read",))
    _id, submitter = token_for(db, email, ("submit",))
    assert http.get("/api/v1/problems/add-tensors", headers=bearer(reader)).status_code == 200
    body = {"problem": "add-tensors", "code": code_of("add-tensors"), "mode": "run"}
    refused = http.post("/api/v1/submissions", headers=bearer(reader), json=body)
    assert refused.status_code == 403 and refused.json()["error"] == "insufficient_scope"
    made = http.post("/api/v1/submissions?wait=true&timeout=30", headers=bearer(submitter), json=body)
    assert made.status_code in (200, 202), made.text
    own = f"/api/v1/submissions/{made.json()['id']}"
    assert http.get(own, headers=bearer(submitter)).json()["error"] == "insufficient_scope"
    assert http.get(own, headers=bearer(reader)).status_code in (200, 202)
    # A student's token cannot reach the instructor API with any scope it can hold: it gets the
    # answer any student gets (the role), not an invitation to make a teach token.
    for token in (reader, submitter):
        answer = http.get("/api/v1/authoring/problems", headers=bearer(token))
        assert answer.status_code == 403 and answer.json()["error"] == "forbidden"
        assert http.get("/api/v1/courses/1/gradebook", headers=bearer(token)).status_code == 404


def test_token_endpoint_takes_name_scopes_and_expiry(http: httpx.Client, db: Database) -> None:
    student, teacher = new_account(db), new_account(db, "instructor")

    def ask(email: str, **form: str) -> httpx.Response:
        return http.post("/api/v1/auth/token", data={"username": email, "password": PASSWORD, **form})

    default = ask(student).json()
    assert default["scopes"] == ["read", "submit"] and default["scope"] == "read submit"
    expires = datetime.fromisoformat(default["expires_at"])
    assert timedelta(days=89) < expires - utcnow() <= timedelta(days=90)
    assert ask(teacher).json()["scopes"] == ["read", "submit", "teach"]
    chosen = ask(teacher, name="ci runner", scope="teach read", expires_in_days="7").json()
    assert chosen["name"] == "ci runner" and chosen["scopes"] == ["read", "teach"]
    assert timedelta(days=6) < datetime.fromisoformat(chosen["expires_at"]) - utcnow() <= timedelta(days=7)
    forever = ask(student, expires_in_days="never").json()
    assert forever["expires_at"] is None
    listed = http.get("/api/v1/auth/tokens", headers=bearer(chosen["access_token"])).json()["items"]
    mine = next(t for t in listed if t["id"] == chosen["id"])
    assert mine["scopes"] == ["read", "teach"] and mine["expires_at"] and mine["name"] == "ci runner"
    assert "access_token" not in mine and chosen["access_token"] not in str(listed)

    for form in (
        {"scope": "teach"},  # a student cannot hold teach
        {"scope": "admin"},
        {"scope": "read write"},
        {"scope": "read\x00"},
        {"expires_in_days": "0"},
        {"expires_in_days": "-1"},
        {"expires_in_days": "3651"},
        {"expires_in_days": "1e3"},
        {"expires_in_days": "soon"},
        {"name": "bad\x00name"},
    ):
        answer = ask(student, **form)
        assert answer.status_code == 422 and answer.json()["error"] == "invalid_input", (form, answer.text)
    assert ask(student, password="wrong password").status_code == 401


def test_expired_and_revoked_tokens_get_401_everywhere(http: httpx.Client, db: Database) -> None:
    teacher = new_account(db, "instructor")
    _id, expired = token_for(db, teacher, made=utcnow() - timedelta(days=8), days=7)
    revoked_id, revoked = token_for(db, teacher)
    live_id, live = token_for(db, teacher)
    assert http.delete(f"/api/v1/auth/tokens/{revoked_id}", headers=bearer(live)).status_code == 204
    submission = {"problem": "add-tensors", "code": "x = 1", "mode": "run"}
    for token in (expired, revoked):
        for method, url, body in (
            ("GET", "/api/v1/auth/me", None),
            ("GET", "/api/v1/problems", None),  # anonymous callers may list: a bad token may not
            ("POST", "/api/v1/submissions", submission),
            ("GET", "/api/v1/authoring/problems", None),
            ("GET", "/api/v1/courses", None),
        ):
            answer = http.request(method, url, headers=bearer(token), json=body)
            assert answer.status_code == 401, (token == expired, url, answer.text)
            assert answer.json()["error"] == "invalid_token"
    assert http.get("/api/v1/auth/me", headers=bearer(live)).status_code == 200
    # An expiry passing turns a working token off, with nothing else changing.
    with db.transaction() as session:
        session.execute(update(ApiToken).where(ApiToken.id == live_id)
                        .values(expires_at=utcnow() - timedelta(seconds=1)))  # fmt: skip
    assert http.get("/api/v1/auth/me", headers=bearer(live)).status_code == 401


def test_nobody_revokes_another_users_token(http: httpx.Client, db: Database) -> None:
    victim, attacker = new_account(db), new_account(db)
    victim_id, victim_token = token_for(db, victim)
    _id, attacker_token = token_for(db, attacker)
    for target in (victim_id, 2**31 - 1):
        answer = http.delete(f"/api/v1/auth/tokens/{target}", headers=bearer(attacker_token))
        assert answer.status_code == 404 and answer.json()["error"] == "not_found"
    for target in ("0", "-1", "abc", str(2**31)):
        assert http.delete(f"/api/v1/auth/tokens/{target}", headers=bearer(attacker_token)).status_code == 422
    # Through the account page too.
    page = http.post(
        "/login", data={"email": attacker, "password": PASSWORD, "csrf_token": _csrf(http, "/login")}
    )
    assert page.status_code == 303
    answer = http.post(f"/account/tokens/{victim_id}/revoke", data={"csrf_token": _csrf(http, "/account")})
    assert answer.status_code == 404
    listed = http.get("/api/v1/auth/tokens", headers=bearer(attacker_token)).json()["items"]
    assert victim_id not in {t["id"] for t in listed}
    assert http.get("/api/v1/auth/me", headers=bearer(victim_token)).status_code == 200


def _csrf(http: httpx.Client, page: str) -> str:
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', http.get(page).text)
    assert match
    return match.group(1)


def test_last_used_is_written_at_most_once_a_minute(http: httpx.Client, db: Database) -> None:
    token_id, token = token_for(db, new_account(db))
    long_ago = utcnow() - timedelta(minutes=5)
    with db.transaction() as session:
        session.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=long_ago))

    def last_used() -> datetime | None:
        with db.transaction() as session:
            return session.scalars(select(ApiToken.last_used_at).where(ApiToken.id == token_id)).one()

    assert http.get("/api/v1/auth/me", headers=bearer(token)).status_code == 200
    first = last_used()
    assert first is not None and first > long_ago
    for _ in range(3):
        assert http.get("/api/v1/problems", headers=bearer(token)).status_code == 200
    assert last_used() == first


def test_the_account_page_makes_lists_and_revokes_tokens(http: httpx.Client, db: Database) -> None:
    email = new_account(db)
    assert (
        http.post(
            "/login", data={"email": email, "password": PASSWORD, "csrf_token": _csrf(http, "/login")}
        ).status_code
        == 303
    )
    page = http.get("/account").text
    assert 'value="teach"' not in page  # a student is not offered teach
    made = http.post(
        "/account/tokens",
        data={
            "name": "laptop",
            "scope": ["read"],
            "expires_in_days": "30",
            "csrf_token": _csrf(http, "/account"),
        },
    )
    assert made.status_code == 201
    plain = re.search(r"<code>(td_[A-Za-z0-9_-]+)</code>", made.text)
    assert plain
    row = re.search(r'<tr class="token-row" data-token-id="(\d+)">(.*?)</tr>', made.text, re.S)
    assert row and "laptop" in row.group(2) and "<code>read</code>" in row.group(2)
    assert "<code>submit</code>" not in row.group(2) and "never" in row.group(2)  # not used yet
    assert (utcnow() + timedelta(days=30)).strftime("%Y-%m-%d") in row.group(2)
    assert http.get("/api/v1/auth/me", headers=bearer(plain.group(1))).status_code == 200
    listed = http.get("/account").text
    assert re.search(r"last used|<time", listed)
    for bad in ({"scope": ["teach"]}, {"scope": ["everything"]}, {"expires_in_days": "99999"}, {}):
        refused = http.post(
            "/account/tokens", data={"name": "x", **bad, "csrf_token": _csrf(http, "/account")}
        )
        assert refused.status_code == 400 and 'id="token-error"' in refused.text, bad
    revoked = http.post(
        f"/account/tokens/{row.group(1)}/revoke", data={"csrf_token": _csrf(http, "/account")}
    )
    assert revoked.status_code == 303
    assert http.get("/api/v1/auth/me", headers=bearer(plain.group(1))).status_code == 401
    assert f'data-token-id="{row.group(1)}"' not in http.get("/account").text
