"""Accessibility as a test: axe-core over the main page states, in both themes.

Serious and critical findings fail the test (with the rule, the impact and the offending nodes).
axe is evaluated through Playwright (not served by the app), so the CSP is untouched.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server, Visit, Visits
from tests.browser.courses import create_assignment, create_course, join
from tests.browser.editor import bank_file, replace_code, wait_verdict

pytestmark = pytest.mark.browser

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()
BLOCKING = ("serious", "critical")


def axe_findings(page: Page) -> list[str]:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE)
    result: dict[str, Any] = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    problems = []
    for v in result["violations"]:
        if v.get("impact") in BLOCKING:
            nodes = "; ".join(" ".join(n["target"]) if isinstance(n["target"], list) else str(n["target"])
                              for n in v["nodes"][:5])  # fmt: skip
            problems.append(f"{v['id']} ({v['impact']}): {v['help']} — {nodes}")
    return problems


def in_both_themes(v: Visit, state: str, found: dict[str, list[str]]) -> None:
    for theme in ("light", "dark"):
        v.page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        problems = axe_findings(v.page)
        if problems:
            found[f"{state} [{theme}]"] = problems


def send_reset_link(page: Page, email: str) -> None:
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Send me a link").click()
    expect(page.locator("#reset-sent")).to_be_visible()


def test_main_pages_have_no_serious_axe_findings(visits: Visits, server: Server) -> None:
    found: dict[str, list[str]] = {}
    anon = visits.new("anonymous")
    states: list[tuple[str, Callable[[Page], None]]] = [
        ("problem list", lambda p: p.goto("/problems")),
        ("tracks", lambda p: p.goto("/tracks")),
        ("problem page", lambda p: p.goto("/problems/add-tensors")),
        ("learn tab", lambda p: p.get_by_role("tab", name="Learn").click()),
        ("locked problem", lambda p: p.goto("/problems/scale-rows")),
        ("log in", lambda p: p.goto("/login")),
        ("sign up", lambda p: p.goto("/signup")),
        ("forgot password", lambda p: p.goto("/forgot-password")),
        ("reset link sent", lambda p: send_reset_link(p, "nobody@example.com")),
        ("reset link not valid", lambda p: p.goto("/reset-password?token=not-a-token")),
    ]
    anon.page.goto("/problems")  # the check itself can fail: a nameless button is critical
    anon.page.evaluate("() => document.querySelector('main').appendChild(document.createElement('button'))")
    assert any(p.startswith("button-name (critical)") for p in axe_findings(anon.page))
    for name, go in states:
        go(anon.page)
        in_both_themes(anon, f"anonymous {name}", found)

    learner = visits.new("learner")
    learner.login(server.new_account(), "/problems/add-tensors")
    page = learner.page
    in_both_themes(learner, "learner problem page", found)
    page.get_by_role("button", name="Show hint 1 of 2").click()
    expect(page.locator("#hint-list li")).to_have_count(1)
    in_both_themes(learner, "learner problem page with a hint", found)
    page.goto("/tracks")
    in_both_themes(learner, "learner tracks", found)
    page.goto("/problems/add-tensors")
    replace_code(page, "def add(a, b):\n    return a - b\n")
    page.get_by_role("button", name="Run").click()
    wait_verdict(page, "Differs from the reference")
    in_both_themes(learner, "wrong answer", found)
    replace_code(page, bank_file("add-tensors"))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Accepted")
    in_both_themes(learner, "accepted", found)
    page.get_by_text("Editor settings").click()
    in_both_themes(learner, "editor settings open", found)
    page.get_by_role("tab", name="My input").click()
    page.get_by_label("Arguments for add").fill('{"a": {"tensor": [[1], [2, 3]]}}')
    page.get_by_role("button", name="Try my input").click()
    expect(page.locator("#custom-input-error")).to_be_visible()
    in_both_themes(learner, "custom input refused", found)
    page.get_by_label("Arguments for add").fill('{"a": {"tensor": [1.0]}, "b": {"tensor": [2.0]}}')
    page.get_by_role("button", name="Try my input").click()
    wait_verdict(page, "Your input: Matches the reference")
    in_both_themes(learner, "custom input result", found)
    ids = page.locator("#history-list li").evaluate_all("rows => rows.map(r => r.dataset.id)")
    page.get_by_label(f"Compare #{ids[0]}").check()
    page.get_by_label(f"Compare #{ids[1]}").check()
    in_both_themes(learner, "history with two picked", found)
    page.get_by_role("link", name="Show the line diff").click()
    expect(page.locator("#diff-summary")).to_be_visible()
    in_both_themes(learner, "compare two submissions", found)
    page.goto(f"/submissions/{ids[1]}")  # the accepted submit, its cases rendered by the page script
    expect(page.get_by_role("heading", level=1)).to_contain_text("Submission")
    in_both_themes(learner, "submission page", found)
    page.goto("/account")
    in_both_themes(learner, "account page", found)

    teacher = visits.new("instructor")
    teacher.login(server.accounts.instructor, "/authoring")
    in_both_themes(teacher, "authoring list", found)
    teacher.page.goto("/authoring/new")
    in_both_themes(teacher, "authoring editor", found)

    # classes: the instructor's and the student's course pages
    tpage = teacher.page
    title = f"Axe course {uuid.uuid4().hex[:4]}"
    course, code = create_course(tpage, title)
    in_both_themes(teacher, "course page (instructor)", found)
    assignment = create_assignment(tpage, course, "Week 1", "add-tensors", -timedelta(hours=1))
    in_both_themes(teacher, "assignment (instructor)", found)
    join(page, code, title)
    # work for the course (the drill-down shows only what the learner did after joining)
    page.goto("/problems/add-tensors")
    replace_code(page, bank_file("add-tensors"))
    page.get_by_role("button", name="Submit").click()
    wait_verdict(page, "Accepted")
    page.goto("/courses")
    in_both_themes(learner, "my courses", found)
    page.goto(course)
    in_both_themes(learner, "course page (student, with Leave)", found)
    page.goto(assignment)
    in_both_themes(learner, "assignment (student)", found)
    tpage.goto(f"{course}/gradebook")
    in_both_themes(teacher, "gradebook", found)
    tpage.locator("#gradebook tbody a").first.click()
    tpage.locator("details.attempt summary").first.click()
    in_both_themes(teacher, "drill-down", found)
    tpage.goto(f"{assignment}/regrades")
    in_both_themes(teacher, "regrade", found)

    assert not found, "\n".join(f"{state}:\n  " + "\n  ".join(items) for state, items in found.items())
