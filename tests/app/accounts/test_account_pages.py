"""Sign-up, log-in, log-out, sessions and CSRF on the HTML forms."""

from __future__ import annotations

import re

PASSWORD = "correct horse battery"


def test_signup_logs_in_with_a_safe_cookie(browser) -> None:
    response = browser.signup("Ada@Example.com")
    assert response.status_code == 303 and response.headers["location"] == "/problems"
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    page = browser.get("/problems").text
    assert "ada@example.com" in page and "Log out" in page


def test_signup_errors_keep_the_email_and_only_a_password_that_was_fine(browser, new_browser) -> None:
    first = new_browser()
    assert first.signup("taken@example.com").status_code == 303
    cases = {
        ("taken@example.com", PASSWORD): "already exists",
        ("not-an-email", PASSWORD): "valid email",
        ("short@example.com", "1234567"): "at least 8 characters",
        ("nopass@example.com", ""): "Choose a password",
        ("", PASSWORD): "Enter your email",
    }
    for (email, password), message in cases.items():
        response = browser.signup(email, password)
        assert response.status_code == 400, email
        assert message in response.text
        if email:
            assert f'value="{email}"' in response.text
        if password:  # kept when only the email was wrong, cleared when the password was
            kept = f'value="{password}"' in response.text
            assert kept == (message != "at least 8 characters"), email
    assert "Log out" not in browser.get("/problems").text


def test_login_and_logout(browser, new_browser) -> None:
    new_browser().signup("grace@example.com")
    wrong = browser.login("grace@example.com", "not the password")
    assert wrong.status_code == 400 and "Email or password is incorrect" in wrong.text
    assert 'value="grace@example.com"' in wrong.text and "not the password" not in wrong.text
    ok = browser.login("GRACE@example.com ", PASSWORD)
    assert ok.status_code == 303
    assert "grace@example.com" in browser.get("/problems").text
    out = browser.post("/logout", data={"csrf_token": browser.csrf()})
    assert out.status_code == 303
    assert "Log out" not in browser.get("/problems").text


def test_login_redirects_only_within_the_site(browser, new_browser) -> None:
    new_browser().signup("hopper@example.com")
    targets = {
        "/problems/add-tensors": "/problems/add-tensors",
        "//evil.test/x": "/problems",
        "https://evil.test/": "/problems",
    }
    for target, expected in targets.items():
        browser.cookies.clear()
        token = browser.csrf("/login")
        response = browser.post(
            "/login",
            data={"email": "hopper@example.com", "password": PASSWORD, "csrf_token": token, "next": target},
        )
        assert response.headers["location"] == expected


def test_forms_refuse_missing_or_wrong_csrf(browser, learner) -> None:
    for data in ({"email": "x@example.com", "password": PASSWORD},
                 {"email": "x@example.com", "password": PASSWORD, "csrf_token": "forged"}):  # fmt: skip
        for path in ("/signup", "/login"):
            response = browser.post(path, data=data)
            assert response.status_code == 403 and "expired" in response.text
    assert learner.post("/logout", data={"csrf_token": "forged"}).status_code == 403
    assert learner.post("/logout").status_code == 403
    assert "Log out" in learner.get("/problems").text  # still logged in
    assert browser.login("x@example.com").status_code == 400  # the refused sign-up created nothing


def test_csrf_token_is_rotated_on_login(browser, new_browser) -> None:
    new_browser().signup("rotate@example.com")
    before = browser.csrf()
    browser.login("rotate@example.com")
    after = re.search(r'name="csrf-token" content="([^"]+)"', browser.get("/problems").text).group(1)  # type: ignore[union-attr]
    assert before != after


def test_sign_up_errors_link_to_log_in_and_keep_a_good_password(browser, learner) -> None:
    taken = browser.post(
        "/signup",
        data={
            "email": learner.email,
            "password": "another good password",
            "csrf_token": browser.csrf("/signup"),
        },
    )
    assert taken.status_code == 400, taken.text[taken.text.find("field-error") - 200 :][:600]
    assert 'already exists. <a href="/login?next=/problems&amp;email=' in taken.text
    assert 'value="another good password"' in taken.text  # only the email was wrong: the password stays

    short = browser.post(
        "/signup",
        data={"email": "fresh@example.com", "password": "short", "csrf_token": browser.csrf("/signup")},
    )
    assert short.status_code == 400 and 'value="short"' not in short.text
    prefilled = browser.get("/login?email=someone%40example.com")
    assert 'value="someone@example.com"' in prefilled.text
