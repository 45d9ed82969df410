"""Instructor tools in Chromium: forms that keep every value, the problem picker by keyboard and
without scripts, a problem opened from an assignment, local times and the join link's copy button.
axe runs on every state reached."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server, Visit, Visits
from tests.browser.courses import create_assignment, create_course, field_time, join, pick_problem
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser


def axe_clean(v: Visit, label: str) -> None:
    for theme in ("light", "dark"):
        v.page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
        assert axe_findings(v.page) == [], f"{label} [{theme}]"
    v.screenshot(label)


def described_error(page: Page, field_id: str, words: str, error_id: str = "") -> None:
    """The field is invalid and its description (read by screen readers) is the message."""
    field = page.locator(f"#{field_id}")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(re.compile(re.escape(words)))
    expect(page.locator(f"#{error_id or field_id + '-error'}")).to_be_visible()


def chosen(page: Page) -> list[str]:
    return page.locator("#a-problems-chosen li[data-slug]").evaluate_all(
        "els => els.map(e => e.dataset.slug)"
    )


def test_course_and_assignment_forms_keep_every_value(visits: Visits, server: Server) -> None:
    v = visits.new("teacher")
    v.login(server.new_account("instructor"), "/courses")
    page = v.page
    title = f"Deep Learning {uuid.uuid4().hex[:4]}"
    page.locator("#course-title").fill(title)
    page.locator("#course-term").fill("Spring 2027")
    page.locator("#course-tz").fill("Europe/Pariss")
    page.get_by_role("button", name="Create course").click()
    described_error(page, "course-tz", "Unknown timezone 'Europe/Pariss'")
    expect(page.locator("#course-title")).to_have_value(title)
    expect(page.locator("#course-term")).to_have_value("Spring 2027")
    expect(page.locator("#course-tz")).to_have_value("Europe/Pariss")
    axe_clean(v, "course-form-error")
    page.locator("#course-tz").fill("Europe/Paris")
    page.get_by_role("button", name="Create course").click()
    page.wait_for_url(re.compile(r"/courses/\d+$"))
    course = urlsplit(page.url).path

    # the picker by keyboard only: search, arrows, Enter; reorder and remove with buttons
    search = page.get_by_role("combobox", name="Add problems (search)")
    expect(page.locator("#a-problems")).to_be_hidden()
    page.locator("#a-title").fill("Week 1")
    search.focus()
    page.keyboard.type("add-ten")
    expect(page.locator("#a-problems-option-add-tensors")).to_be_visible()
    expect(search).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Enter")
    expect(page.locator("#a-problems-status")).to_contain_text("Added")
    page.keyboard.type("scale-r")
    option = page.locator("#a-problems-option-scale-rows")
    expect(option).to_be_visible()
    count = page.locator("#a-problems-options [role=option]").count()
    for _ in range(count):  # ↓ until the active option is scale-rows
        if search.get_attribute("aria-activedescendant") == "a-problems-option-scale-rows":
            break
        page.keyboard.press("ArrowDown")
    expect(search).to_have_attribute("aria-activedescendant", "a-problems-option-scale-rows")
    page.keyboard.press("Enter")
    page.keyboard.type("zzz-nothing")
    expect(page.locator("#a-problems-status")).to_contain_text("No problem matches")
    page.keyboard.press("Escape")
    search.fill("")
    pick_problem(page, "sum-of-squares")
    assert chosen(page) == ["add-tensors", "scale-rows", "sum-of-squares"]
    page.get_by_role("button", name=re.compile(r"^Move up .*scale-rows")).click()
    assert chosen(page) == ["scale-rows", "add-tensors", "sum-of-squares"]
    page.get_by_role("button", name=re.compile(r"^Remove .*sum-of-squares")).click()
    assert chosen(page) == ["scale-rows", "add-tensors"]
    axe_clean(v, "picker-open")

    # a due time before the release: every field comes back, the picker's order too
    page.locator("#a-release").fill(field_time(timedelta(hours=2)))
    page.locator("#a-due").fill(field_time(timedelta(hours=1)))
    late = f"{field_time(timedelta(days=2))}, 50"
    page.locator("#a-late").fill(late)
    page.locator("#a-after").select_option("closed")
    page.get_by_role("button", name="Create assignment").click()
    described_error(page, "a-due", "due_at must come after release_at")
    expect(page.locator("#assignment-errors")).to_be_focused()  # scrolled to: the form is far down
    expect(page.locator("#a-title")).to_have_value("Week 1")
    expect(page.locator("#a-late")).to_have_value(late)
    expect(page.locator("#a-after")).to_have_value("closed")
    assert chosen(page) == ["scale-rows", "add-tensors"]
    axe_clean(v, "assignment-form-error")
    page.locator("#a-due").fill(field_time(timedelta(days=1)))
    page.get_by_role("button", name="Create assignment").click()
    page.wait_for_url(re.compile(r"/assignments/\d+$"))
    links = page.locator("#dates dd a")
    expect(links.first).to_have_attribute("href", re.compile(r"/problems/scale-rows\?assignment=\d+"))

    # edit: an unknown slug typed into the request keeps the rest; a good one saves
    page.get_by_role("link", name="Edit", exact=True).click()
    expect(page.locator("#a-title")).to_have_value("Week 1")
    assert chosen(page) == ["scale-rows", "add-tensors"]
    page.locator("#a-title").fill("Week one")
    page.evaluate(
        """() => { const i = document.createElement('input'); i.type = 'hidden'; i.name = 'problems';
        i.value = 'no-such-problem'; document.getElementById('assignment-form').append(i); }"""
    )
    page.get_by_role("button", name="Save assignment").click()
    described_error(
        page, "a-problems-search", "no published problem called 'no-such-problem'", "a-problems-error"
    )
    expect(page.locator("#a-title")).to_have_value("Week one")
    assert chosen(page) == ["scale-rows", "add-tensors"]
    axe_clean(v, "assignment-edit-error")
    page.get_by_role("button", name="Save assignment").click()
    expect(page.locator("#notice")).to_contain_text("Assignment saved")
    expect(page.get_by_role("heading", level=1)).to_have_text("Week one")

    # the course's edit form
    page.goto(f"{course}/edit")
    page.locator("#edit-tz").fill("Moon/Base")
    page.locator("#edit-term").fill("Autumn")
    page.get_by_role("button", name="Save course").click()
    described_error(page, "edit-tz", "Unknown timezone")
    expect(page.locator("#edit-term")).to_have_value("Autumn")
    axe_clean(v, "course-edit-error")


def test_extension_roster_and_co_instructor_errors_keep_values(visits: Visits, server: Server) -> None:
    teacher, learner = visits.new("teacher"), visits.new("student")
    student = server.new_account()
    teacher.login(server.new_account("instructor"), "/courses")
    title = f"Errors {uuid.uuid4().hex[:4]}"
    course, code = create_course(teacher.page, title)
    learner.login(student, "/courses")
    join(learner.page, code, title)
    week = create_assignment(teacher.page, course, "Week 1", "add-tensors", -timedelta(hours=1))
    page = teacher.page
    page.goto(week)
    page.get_by_label("Student").select_option(label=student)
    due = field_time(timedelta(days=5))
    page.locator("#x-due").fill(due)
    page.locator("#x-late").fill("next week, 50")
    page.get_by_role("button", name="Save extension").click()
    described_error(page, "x-late", "Late window line 1")
    expect(page.locator("#x-due")).to_have_value(due)
    expect(page.locator("#x-late")).to_have_value("next week, 50")
    expect(page.get_by_label("Student")).to_have_value(re.compile(r"\d+"))
    assert page.get_by_label("Student").evaluate("s => s.options[s.selectedIndex].text") == student
    axe_clean(teacher, "extension-error")

    page.goto(course)
    page.locator("#instructor-email").fill(student)
    page.get_by_role("button", name="Add co-instructor").click()
    described_error(page, "instructor-email", "instructor account")
    expect(page.locator("#instructor-email")).to_have_value(student)
    page.locator("#roster-text").fill("   ")
    page.get_by_role("button", name="Invite", exact=True).click()
    described_error(page, "roster-text", "Choose a CSV file")
    axe_clean(teacher, "roster-error")


def test_the_picker_without_scripts_is_a_plain_list(visits: Visits, server: Server) -> None:
    v = visits.new("no-script", java_script_enabled=False)
    teacher = server.new_account("instructor")
    v.login(teacher, "/courses")
    page = v.page
    page.locator("#course-title").fill(f"No script {uuid.uuid4().hex[:4]}")
    page.get_by_role("button", name="Create course").click()
    page.wait_for_url(re.compile(r"/courses/\d+$"))
    course = urlsplit(page.url).path
    picker = page.get_by_label("Problems (in order)")
    expect(picker).to_be_visible()
    picker.select_option(["add-tensors", "sum-of-squares"])
    page.locator("#a-title").fill("Plain")
    page.locator("#a-release").fill(field_time(-timedelta(hours=1)))
    page.locator("#a-due").fill(field_time(timedelta(hours=1)))
    page.locator("#a-late").fill("someday, 50")
    page.get_by_role("button", name="Create assignment").click()
    expect(page.locator("#a-late-error")).to_contain_text("Late window line 1")
    expect(picker).to_have_values(["add-tensors", "sum-of-squares"])  # chosen ones kept, selected
    expect(page.locator("#a-title")).to_have_value("Plain")
    v.screenshot("picker-no-script-error")
    page.locator("#a-late").fill("")
    page.get_by_role("button", name="Create assignment").click()
    page.wait_for_url(re.compile(r"/assignments/\d+$"))
    hrefs = [a.get_attribute("href") or "" for a in page.locator("#dates dd a").all()]
    assert [h.split("?")[0] for h in hrefs] == ["/problems/add-tensors", "/problems/sum-of-squares"]

    # axe needs scripts: the same plain list, in a browser whose picker script never arrives
    plain = visits.new("picker-script-blocked")
    plain.context.route(re.compile(r".*/course-picker[^/]*\.js$"), lambda route: route.abort())
    plain.login(teacher, course)
    expect(plain.page.get_by_label("Problems (in order)")).to_be_visible()
    expect(plain.page.locator("#a-problems-search")).to_have_count(0)  # the picker script never ran
    axe_clean(plain, "picker-plain-list")


def test_a_problem_from_an_assignment_shows_the_deadline_in_local_time(
    visits: Visits, server: Server
) -> None:
    teacher = visits.new("teacher", timezone_id="UTC", locale="en-GB")
    learner = visits.new("student", timezone_id="Asia/Tokyo", locale="en-GB")
    student = server.new_account()
    teacher.login(server.new_account("instructor"), "/courses")
    title = f"Local {uuid.uuid4().hex[:4]}"
    course, code = create_course(teacher.page, title)
    week = create_assignment(teacher.page, course, "Week 1", "add-tensors", -timedelta(hours=1))
    due_text = teacher.page.locator("#due-at")
    expect(due_text).to_have_attribute("data-localised", "true")
    due_utc = datetime.fromisoformat(str(due_text.get_attribute("datetime")).replace("Z", "+00:00"))
    assert due_utc.tzinfo is not None and abs(
        due_utc - (datetime.now(UTC) + timedelta(hours=23))
    ) < timedelta(hours=2)
    expect(due_text).to_have_attribute("title", re.compile(r"UTC$"))

    learner.login(student, "/courses")
    join(learner.page, code, title)
    page = learner.page
    page.goto(week)
    page.locator('#problem-status tr[data-slug="add-tensors"]').get_by_role("link").click()
    page.wait_for_url(re.compile(r"/problems/add-tensors\?assignment=\d+$"))
    banner = page.locator("#from-assignment")
    expect(banner).to_be_visible()
    due = page.locator("#assignment-due")
    expect(due).to_have_attribute("data-localised", "true")
    tokyo = due_utc.astimezone(ZoneInfo("Asia/Tokyo"))
    expect(due).to_contain_text(tokyo.strftime("%H:%M"))
    expect(due).to_contain_text(re.compile(r"GMT\+9|JST"))
    expect(page.locator("#assignment-credit")).to_contain_text("100 % (on time)")
    axe_clean(learner, "problem-from-assignment")
    page.get_by_role("link", name="← Back to Week 1").click()
    page.wait_for_url(re.compile(re.escape(week) + "$"))
    page.goto("/problems/add-tensors?assignment=999999")  # not theirs: the plain problem page
    expect(page.locator("#problem-title")).to_be_visible()
    expect(page.locator("#from-assignment")).to_have_count(0)


def test_the_join_link_copies_or_is_selected(visits: Visits, server: Server) -> None:
    v = visits.new("copy", permissions=["clipboard-read", "clipboard-write"])
    teacher = server.new_account("instructor")
    v.login(teacher, "/courses")
    course, _code = create_course(v.page, f"Copy {uuid.uuid4().hex[:4]}")
    page = v.page
    link = page.locator("#join-url").inner_text().strip()
    page.get_by_role("button", name="Copy join link").click()
    expect(page.locator("#copy-status")).to_have_text("Join link copied.")
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    axe_clean(v, "copied")

    denied = visits.new("copy-denied")
    denied.context.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', {value: {writeText: () => "
        "Promise.reject(new DOMException('denied', 'NotAllowedError'))}});"
    )
    denied.login(teacher, course)
    denied.page.get_by_role("button", name="Copy join link").click()
    expect(denied.page.locator("#copy-status")).to_contain_text("press Ctrl+C")
    assert denied.page.evaluate("() => window.getSelection().toString().trim()") == link
    axe_clean(denied, "copy-denied")
