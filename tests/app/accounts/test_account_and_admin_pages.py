"""The account page (progress, tokens, codes, password), the admin page, and log-in throttling."""

from __future__ import annotations

import html
import re
import uuid
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app.accounts.models import LoginFailure, User
from app.accounts.service import sign_up
from app.kit.db import Database
from tests.app.conftest import PASSWORD, Browser


@pytest.fixture(autouse=True)
def forget_failed_logins(db: Database) -> Iterator[None]:
    yield
    with db.transaction() as session:
        session.execute(delete(LoginFailure))


def staff(new_browser: Callable[[], Browser], db: Database, role: str) -> Browser:
    email = f"{role}-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role=role)
    b = new_browser()
    assert b.login(email).status_code == 303
    return b


def post(b: Browser, url: str, **data: str) -> object:
    return b.post(url, data={"csrf_token": b.csrf("/account"), **data})


def test_account_page_needs_login(browser) -> None:
    response = browser.get("/account")
    assert response.status_code == 303 and response.headers["location"].startswith("/login?next=/account")


def test_progress_by_difficulty_and_category(learner, code_of) -> None:
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors")).json()["id"])
    learner.verdict(learner.submit("sum-of-squares", "def sum_of_squares(x):\n    return 0\n").json()["id"])
    html = learner.get("/account").text
    assert "Solved <strong>1</strong> of 3 problems; attempted 2." in html
    assert re.search(r"<td>Easy</td><td>1</td><td>1</td><td>1</td>", html)
    assert re.search(r"<td>Hard</td><td>0</td><td>1</td><td>1</td>", html)
    assert re.search(r"<td>Test Basics</td><td>1</td><td>1</td><td>2</td>", html)
    assert "Premium: not active" in html


def test_token_is_shown_once_works_and_can_be_revoked(learner, app) -> None:
    created = post(learner, "/account/tokens", name="laptop", scope="read")
    assert created.status_code == 201
    token = re.search(r"<code>(td_[^<]+)</code>", created.text).group(1)  # type: ignore[union-attr]
    api = TestClient(app)
    assert api.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    page = learner.get("/account").text
    assert token not in page and "laptop" in page  # listed, never shown again
    token_id = re.search(r'action="/account/tokens/(\d+)/revoke"', page).group(1)  # type: ignore[union-attr]
    assert post(learner, f"/account/tokens/{token_id}/revoke").status_code == 303
    assert api.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401


def test_instructor_code_unlocks_premium_for_a_class(new_browser, db, code_of) -> None:
    teacher = staff(new_browser, db, "instructor")
    assert post(teacher, "/account/codes", label="Class 7", uses="1", days="30").status_code == 303
    code = re.search(
        r"<code>([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})</code>", teacher.get("/account").text
    ).group(1)  # type: ignore[union-attr]

    learner = new_browser()
    learner.signup()
    assert learner.submit("scale-rows", code_of("scale-rows")).status_code == 403
    bad = post(learner, "/account/redeem", code="NOPE")
    assert bad.status_code == 400 and "like ABCD-EFGH-JKLM" in bad.text and 'value="NOPE"' in bad.text
    assert post(learner, "/account/redeem", code=code.lower()).status_code == 303
    assert "Premium: active until" in learner.get("/account").text
    assert (
        learner.verdict(learner.submit("scale-rows", code_of("scale-rows")).json()["id"])["verdict"]
        == "accepted"
    )
    again = post(learner, "/account/redeem", code=code)
    assert again.status_code == 400 and "already redeemed" in again.text

    late = new_browser()
    late.signup()
    used_up = post(late, "/account/redeem", code=code)
    assert used_up.status_code == 400 and "used up" in used_up.text
    assert "1/1" in teacher.get("/account").text


def test_students_cannot_create_codes_or_use_admin(learner) -> None:
    assert post(learner, "/account/codes", label="x", uses="1", days="1").status_code == 403
    assert learner.get("/admin").status_code == 403
    assert post(learner, "/admin/users/1/premium", days="30").status_code == 403


def test_code_form_errors_keep_values(new_browser, db) -> None:
    teacher = staff(new_browser, db, "instructor")
    response = post(teacher, "/account/codes", label="Class 8", uses="many", days="0")
    assert (
        response.status_code == 400 and "whole number" in response.text and 'value="Class 8"' in response.text
    )


def test_admin_grants_and_revokes_premium(new_browser, db, code_of) -> None:
    admin = staff(new_browser, db, "admin")
    learner = new_browser()
    learner.signup()
    listing = admin.get("/admin", params={"q": learner.email}).text
    user_id = re.search(r'action="/admin/users/(\d+)/premium"', listing).group(1)  # type: ignore[union-attr]
    bad = admin.post(
        f"/admin/users/{user_id}/premium", data={"days": "-3", "csrf_token": admin.csrf("/admin")}
    )
    assert bad.status_code == 400 and "between 1 and" in bad.text
    granted = admin.post(
        f"/admin/users/{user_id}/premium", data={"days": "7", "csrf_token": admin.csrf("/admin")}
    )
    assert granted.status_code == 303
    assert "PREMIUM-ONLY-SECRET" in learner.get("/problems/scale-rows").text
    revoke = admin.post(f"/admin/users/{user_id}/premium/revoke", data={"csrf_token": admin.csrf("/admin")})
    assert revoke.status_code == 303
    assert "PREMIUM-ONLY-SECRET" not in learner.get("/problems/scale-rows").text
    assert learner.submit("scale-rows", code_of("scale-rows")).status_code == 403


def test_reference_solution_on_the_page_only_for_members_who_solved_it(admin, learner, code_of) -> None:
    assert 'id="reference-solution"' not in admin.get("/problems/scale-rows").text
    admin.verdict(admin.submit("scale-rows", code_of("scale-rows")).json()["id"])
    assert 'id="reference-solution"' in admin.get("/problems/scale-rows").text
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors")).json()["id"])
    assert 'id="reference-solution"' not in learner.get("/problems/add-tensors").text  # not premium


def test_account_forms_refuse_missing_csrf(learner) -> None:
    forms = {
        "/account/tokens": {"name": "x"},
        "/account/redeem": {"code": "AAAA-BBBB-CCCC"},
        "/account/password": {"current_password": PASSWORD, "new_password": "another long one"},
        "/admin/users/1/premium": {"days": "3"},
    }
    for url, data in forms.items():
        response = learner.post(url, data=data)
        assert response.status_code == 403 and "expired" in response.text, url
    assert "No tokens." in learner.get("/account").text


def test_change_password(learner, new_browser) -> None:
    wrong = post(learner, "/account/password", current_password="nope", new_password="brand new secret")
    assert wrong.status_code == 400 and "current password is not correct" in wrong.text
    weak = post(learner, "/account/password", current_password=PASSWORD, new_password="12345678")
    assert weak.status_code == 400 and "too easy to guess" in weak.text
    assert (
        post(
            learner, "/account/password", current_password=PASSWORD, new_password="brand new secret"
        ).status_code
        == 303
    )
    assert new_browser().login(learner.email).status_code == 400
    assert new_browser().login(learner.email, "brand new secret").status_code == 303


def test_login_is_throttled_per_email(browser, new_browser, app) -> None:
    new_browser().signup("guessme@example.com")
    for _ in range(app.state.settings.login_max_failures_per_email):
        assert browser.login("guessme@example.com", "wrong guess").status_code == 400
    throttled = browser.login("guessme@example.com")  # the right password waits too
    assert throttled.status_code == 429 and "Too many failed log-ins" in throttled.text
    assert 'value="guessme@example.com"' in throttled.text and int(throttled.headers["Retry-After"]) > 0
    other = new_browser()
    other.signup()
    assert new_browser().login(other.email).status_code == 303  # other accounts are unaffected


def test_admin_pages_users_by_email_a_hundred_at_a_time(new_browser, db) -> None:
    admin = staff(new_browser, db, "admin")
    tag = uuid.uuid4().hex[:8]
    with db.transaction() as session:  # the hash is slow: these accounts share one made-up hash
        made = sorted(f"u{i:03d}-{tag}@example.com" for i in range(103))
        for email in made:
            session.add(User(email=email, password_hash="x", role="student"))
    listed: list[str] = []
    url: str | None = f"/admin?q={tag}"
    pages = 0
    while url:
        page = admin.get(url)
        assert page.status_code == 200
        listed += re.findall(r"<td>([^<]+)</td>", page.text)
        pages += 1
        found = re.search(r'<a href="([^"]+)" id="users-next"', page.text)
        url = html.unescape(found.group(1)) if found else None
        if pages == 1:
            assert 'id="users-first"' not in page.text
            with db.transaction() as session:  # a sign-up meanwhile that sorts first: not on later pages
                session.add(User(email=f"a-{tag}@example.com", password_hash="x", role="student"))
    assert pages == 2 and 'id="users-first"' in page.text
    assert listed == made  # every user once, in email order, across the two pages
    assert admin.get("/admin?after=forged").status_code == 422


def test_the_admin_user_query_reads_the_email_index_in_order(db) -> None:
    from app.accounts import repository
    from tests.app.keyset import assert_ordered_by_index, plan_of

    with db.transaction() as session:
        explained = plan_of(session, lambda: repository.list_users(session, None, 101, "m@example.com"))
    # SQLite names the unique constraint's own index sqlite_autoindex_users_1.
    index = "uq_users_email" if db.url.startswith("postgresql") else "sqlite_autoindex_users_1"
    assert_ordered_by_index(explained, index)
