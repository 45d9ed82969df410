"""LTI in Chromium: the admin registers a platform (a wrong field keeps every value), and an
instructor coming from an LTI 1.3 platform on 127.0.0.1 deep-links an assignment through our
picker; the signed content item reaches the platform by the return page's auto-submit. Both pages
pass the axe checks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import urlencode, urlsplit

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete

from app.kit.settings import Settings
from app.lti import claims, platforms
from app.lti.models import LtiPlatform
from tests.app.cli.conftest import serve_in_thread
from tests.app.lti.platform import CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, Platform, User
from tests.browser.conftest import Server, Visits
from tests.browser.courses import create_assignment
from tests.browser.test_accessibility import axe_findings

pytestmark = pytest.mark.browser


@pytest.fixture
def lms(server: Server) -> Iterator[Platform]:
    platform = Platform(tool_launch_url=f"{server.url}/lti/launch", tool_jwks_url=f"{server.url}/lti/jwks")
    url, uvicorn_server, thread = serve_in_thread(platform.app())
    platform.url = url
    with server.database.transaction() as session:
        platforms.add(
            session,
            Settings(env="development"),
            platforms.PlatformInput(
                platform.issuer, CLIENT_ID, DEPLOYMENT_ID, f"{url}/auth", f"{url}/token", f"{url}/jwks"
            ),
        )
    yield platform
    uvicorn_server.should_exit = True
    thread.join(timeout=10)
    with server.database.transaction() as session:
        session.execute(delete(LtiPlatform).where(LtiPlatform.issuer == platform.issuer))


def test_admin_registers_a_platform(visits: Visits, server: Server) -> None:
    admin = visits.new("admin")
    admin.login(server.accounts.author, "/admin/lti")
    page = admin.page
    expect(page.locator("#tool-urls")).to_contain_text(f"{server.url}/lti/login")
    assert not axe_findings(page), axe_findings(page)
    values = {
        "f-issuer": "https://lms.browser.example",
        "f-client_id": "client-7",
        "f-deployment_id": "dep-7",
        "f-auth_url": "https://lms.browser.example/auth",
        "f-token_url": "http://lms.browser.example/token",
        "f-jwks_url": "https://lms.browser.example/jwks",
    }
    for field, value in values.items():
        page.locator(f"#{field}").fill(value)
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#form-errors")).to_be_visible()
    expect(page.locator("#f-token_url-error")).to_contain_text("Use https")
    for field, value in values.items():  # nothing typed is lost
        expect(page.locator(f"#{field}")).to_have_value(value)
    assert not axe_findings(page), axe_findings(page)
    admin.screenshot("error")
    page.locator("#f-token_url").fill("https://lms.browser.example/token")
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#notice")).to_contain_text("Registered https://lms.browser.example")
    expect(page.locator("#platforms")).to_contain_text("client-7")
    page.get_by_role("button", name="Remove https://lms.browser.example").click()
    expect(page.locator("#notice")).to_contain_text("Removed")


def test_instructor_deep_links_an_assignment(visits: Visits, server: Server, lms: Platform) -> None:
    teacher = visits.new("lti-teacher")
    page = teacher.page
    user = User("browser-t", "Bea Teacher", "bea@uni.example", INSTRUCTOR)

    def arrive(**options: object) -> None:
        lms.pending[user.sub] = {"user": user, "options": options}
        query = {
            "iss": lms.issuer,
            "login_hint": user.sub,
            "target_link_uri": lms.tool_launch_url,
            "client_id": CLIENT_ID,
        }
        page.goto("/lti/login?" + urlencode(query))  # the LMS's login initiation, then its auth page
        page.get_by_role("button", name="Continue").click()  # the platform's form posts the launch

    arrive()  # a first launch: the course is created and linked, the instructor signed in
    page.wait_for_url(re.compile(r"/courses/\d+$"))
    course_path = urlsplit(page.url).path
    create_assignment(page, course_path, "LTI week", "add-tensors", timedelta(hours=-1))

    arrive(message_type=claims.DEEP_LINKING_REQUEST)
    page.wait_for_url(re.compile(r"/lti/deep-link$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Deep Learning 101")
    assert not axe_findings(page), axe_findings(page)
    teacher.screenshot("picker")
    page.get_by_role("button", name="Add to the LMS").click()  # nothing picked: said, nothing sent
    expect(page.locator("#pick-error")).to_contain_text("Pick an assignment or a problem")
    page.get_by_label(re.compile("^LTI week")).check()
    page.get_by_role("button", name="Add to the LMS").click()
    expect(page.locator("#received")).to_have_text("Content received by the LMS.")  # auto-submitted
    (reply,) = lms.deep_link_replies
    (item,) = reply[claims.DL_CONTENT_ITEMS]
    assert item["title"] == "LTI week" and item["lineItem"]["scoreMaximum"] == 100


def test_a_launch_inside_the_lms_iframe_without_the_state_cookie(
    visits: Visits, server: Server, lms: Platform
) -> None:
    """The LMS's course page (on 127.0.0.1) frames the tool, as Canvas and Moodle do. The login
    keeps its state in the platform's frame (lti.put_data); the state cookie is then gone, as in a
    third-party iframe, and the launch reads the state back (lti.get_data) and signs in — inside
    the frame, which only the platform's origin may frame."""
    framed = visits.new("lti-framed")
    page = framed.page
    user = User("browser-f", "Fay Framed", "fay@uni.example", INSTRUCTOR)
    lms.storage_target = "_parent"
    lms.pending[user.sub] = {"user": user, "options": {}}
    page.goto(f"{lms.url}/course-page?{urlencode({'sub': user.sub})}")
    frame = page.frame_locator("#tool")
    expect(frame.get_by_role("button", name="Continue")).to_be_visible()  # at the platform's auth page
    log = page.evaluate("window.ltiLog")
    assert [(m["subject"], m["origin"]) for m in log] == [("lti.put_data", server.url)]
    page.context.clear_cookies()  # the tool's state cookie does not travel into the launch
    frame.get_by_role("button", name="Continue").click()  # the platform posts the launch in the frame
    expect(frame.get_by_role("heading", level=1)).to_contain_text("Deep Learning 101")
    tool = page.frame(name="tool")
    assert tool is not None and re.fullmatch(r"/courses/\d+", urlsplit(tool.url).path)
    subjects = [m["subject"] for m in page.evaluate("window.ltiLog")]
    assert subjects == ["lti.put_data", "lti.get_data"]
    framed.screenshot("signed-in-in-frame")
