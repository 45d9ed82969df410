"""Browser steps the course tests share: create a course and an assignment, join with a code."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect


def field_time(delta: timedelta) -> str:
    """A ``datetime-local`` value ``delta`` from now, in UTC (the courses here use UTC)."""
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M")


def create_course(page: Page, title: str) -> tuple[str, str]:
    """On /courses as an instructor: create a course; returns (its path, its join code)."""
    page.goto("/courses")
    page.locator("#course-title").fill(title)
    page.get_by_role("button", name="Create course").click()
    page.wait_for_url(re.compile(r"/courses/\d+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    code = page.locator("#join-code").inner_text().strip()
    return urlsplit(page.url).path, code


def create_assignment(page: Page, course_path: str, title: str, problems: str, release: timedelta) -> str:
    """On the course page: a new assignment released ``release`` from now, due a day later."""
    page.goto(course_path)
    page.locator("#a-title").fill(title)
    for slug in [s for s in problems.replace(",", " ").split() if s]:
        pick_problem(page, slug)
    page.locator("#a-release").fill(field_time(release))
    page.locator("#a-due").fill(field_time(release + timedelta(days=1)))
    page.locator("#a-late").fill(f"{field_time(release + timedelta(days=2))}, 50")
    page.get_by_role("button", name="Create assignment").click()
    page.wait_for_url(re.compile(r"/assignments/\d+$"))
    expect(page.locator("#notice")).to_contain_text("Assignment created")
    return urlsplit(page.url).path


def pick_problem(page: Page, slug: str) -> None:
    """Add ``slug`` to the assignment form's chosen problems through the picker's search box."""
    search = page.get_by_role("combobox", name="Add problems (search)")
    search.fill(slug)
    option = page.locator(f"#a-problems-option-{slug}")
    option.click()
    expect(page.locator(f'#a-problems-chosen li[data-slug="{slug}"]')).to_have_count(1)


def join(page: Page, code: str, title: str) -> None:
    page.goto("/courses")
    page.get_by_label("Join code or invitation code").fill(code)
    page.get_by_role("button", name="Join").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
