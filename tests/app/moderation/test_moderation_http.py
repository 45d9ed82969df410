"""Moderation over real HTTP (uvicorn on 127.0.0.1): a reported post, once hidden, leaves every
view; who may moderate what, and the attempts to get around it (another course's posts, forged
kinds and ids, a missing CSRF token, a student calling the queue)."""

from __future__ import annotations

import re

import httpx

from tests.app.authoring.people import Person, anonymous
from tests.app.authoring.world import World, assign, publish


def thread_on(person: Person, slug: str, title: str = "A question", body: str = "Some text.") -> int:
    made = person.api("POST", f"/api/v1/problems/{slug}/threads", json={"title": title, "body": body})
    assert made.status_code == 201, made.text
    thread_id: int = made.json()["id"]
    return thread_id


def reply_on(person: Person, thread_id: int, body: str = "An answer.") -> int:
    made = person.api("POST", f"/api/v1/threads/{thread_id}/replies", json={"body": body})
    assert made.status_code == 201, made.text
    reply_id: int = made.json()["id"]
    return reply_id


def report(person: Person, kind: str, target_id: int, reason: str = "Spam.") -> httpx.Response:
    return person.api(
        "POST", "/api/v1/moderation/reports", json={"kind": kind, "id": target_id, "reason": reason}
    )


def queue_ids(person: Person, status: str = "open") -> list[int]:
    answer = person.api("GET", "/api/v1/moderation/reports", params={"status": status})
    assert answer.status_code == 200, answer.text
    return [r["id"] for r in answer.json()["items"]]


def link_count(person: Person, slug: str) -> int:
    found = re.search(r"Discussion \((\d+)\)", person.web.get(f"/problems/{slug}").text)
    assert found, "the problem page has no Discussion link"
    return int(found.group(1))


def test_a_hidden_post_leaves_every_view_but_its_authors(world: World) -> None:
    slug = "add-tensors"
    asker, helper, reader = world.student, world.elsewhere, world.outsider
    before = link_count(reader, slug)
    thread = thread_on(asker, slug, "Hide me", "Offending question.")
    kept = thread_on(asker, slug, "Keep me")
    reply = reply_on(helper, kept, "Offending reply.")
    assert link_count(reader, slug) == before + 2
    filed = [report(reader, "thread", thread), report(reader, "reply", reply)]
    assert [f.status_code for f in filed] == [201, 201], [f.text for f in filed]
    assert report(reader, "reply", reply).status_code == 409  # once per post
    assert report(helper, "reply", reply).status_code == 422  # not one's own
    # The admin hides both from the queue (the page's form for one, the API for the other).
    queue = world.admin.web.get("/moderation")
    assert queue.status_code == 200 and "Offending reply." in queue.text
    hide = world.admin.page_post(f"/moderation/reports/{filed[0].json()['id']}/action", {"action": "hide"})
    assert hide.status_code == 303, hide.text
    acted = world.admin.api("POST", f"/api/v1/moderation/reports/{filed[1].json()['id']}/action",
                            json={"action": "hide"})  # fmt: skip
    assert acted.status_code == 200 and acted.json()["target"]["hidden"] is True
    # Gone for a reader: listing (API and page), counts, thread page, API answers, history, votes, reports.
    listing = reader.api("GET", f"/api/v1/problems/{slug}/threads").json()["items"]
    assert thread not in [t["id"] for t in listing]
    assert next(t for t in listing if t["id"] == kept)["replies"] == 0
    assert "Hide me" not in reader.web.get(f"/problems/{slug}/discussion").text
    assert link_count(reader, slug) == before + 1
    assert reader.web.get(f"/discussion/threads/{thread}").status_code == 404
    page = reader.web.get(f"/discussion/threads/{kept}")
    assert page.status_code == 200 and "Offending reply." not in page.text
    api_thread = reader.api("GET", f"/api/v1/threads/{kept}").json()
    assert api_thread["reply_list"] == [] and api_thread["replies"] == 0
    for path in (f"/api/v1/threads/{thread}", f"/api/v1/threads/{thread}/history",
                 f"/api/v1/replies/{reply}/history"):  # fmt: skip
        assert reader.api("GET", path).status_code == 404, path
    assert reader.web.get(f"/discussion/threads/{thread}/history").status_code == 404
    assert reader.web.get(f"/discussion/replies/{reply}/history").status_code == 404
    assert reader.api("PUT", f"/api/v1/replies/{reply}/vote").status_code == 404
    assert reader.api("POST", f"/api/v1/threads/{thread}/replies", json={"body": "x"}).status_code == 404
    assert report(world.admin, "reply", reply).status_code == 404
    # Its author still sees it, marked.
    own = asker.web.get(f"/discussion/threads/{thread}")
    assert own.status_code == 200 and "Hidden by a moderator" in own.text
    assert asker.api("GET", f"/api/v1/threads/{thread}").json()["marks"]["hidden"] is True
    assert helper.api("GET", f"/api/v1/threads/{kept}").json()["reply_list"][0]["marks"]["hidden"] is True
    # Unhidden, it is back (and so is the count).
    undo = world.admin.api("POST", f"/api/v1/moderation/reports/{filed[1].json()['id']}/action",
                           json={"action": "unhide"})  # fmt: skip
    assert undo.status_code == 200, undo.text
    assert reader.api("GET", f"/api/v1/threads/{kept}").json()["replies"] == 1


def test_instructors_moderate_only_their_courses_problems(world: World) -> None:
    publish(world)
    assert assign(world).status_code == 201
    course_thread = thread_on(world.student, world.slug, "In the course")
    site_thread = thread_on(world.outsider, "add-tensors", "On the site")
    course_report = report(world.author, "thread", course_thread).json()["id"]
    site_report = report(world.elsewhere, "thread", site_thread).json()["id"]
    # The course's instructor sees their course's report, not the site's; the other instructor neither.
    assert course_report in queue_ids(world.author) and site_report not in queue_ids(world.author)
    assert queue_ids(world.other) == []
    assert {course_report, site_report} <= set(queue_ids(world.admin))
    for person, report_id in (
        (world.author, site_report),
        (world.other, course_report),
        (world.other, site_report),
    ):
        for action in ("hide", "unhide", "dismiss"):
            api = person.api(
                "POST", f"/api/v1/moderation/reports/{report_id}/action", json={"action": action}
            )
            assert api.status_code == 404, (action, api.text)
            page = person.page_post(f"/moderation/reports/{report_id}/action", {"action": action})
            assert page.status_code == 404, (action, page.text)
    assert world.outsider.api("GET", f"/api/v1/threads/{site_thread}").status_code == 200
    # The other course's instructor reads nothing of the course-only problem's discussion either.
    assert world.other.api("GET", f"/api/v1/threads/{course_thread}").status_code == 404
    assert world.other.api("GET", f"/api/v1/problems/{world.slug}/threads").status_code == 404
    assert world.outsider.web.get(f"/problems/{world.slug}/discussion").status_code == 404
    assert report(world.outsider, "thread", course_thread).status_code == 404
    # The course's instructor hides its post.
    hidden = world.author.api(
        "POST", f"/api/v1/moderation/reports/{course_report}/action", json={"action": "hide"}
    )
    assert hidden.status_code == 200, hidden.text
    assert world.admin.api("GET", f"/api/v1/threads/{course_thread}").status_code == 404


def test_forged_reports_and_actions(world: World) -> None:
    thread = thread_on(world.student, "add-tensors")
    forged = [
        (report(world.outsider, "user", thread), 422),
        (report(world.outsider, "thread ", thread), 422),
        (report(world.outsider, "reply", thread + 10_000), 404),
        (report(world.outsider, "thread", 2**31 - 1), 404),
        (
            world.outsider.api(
                "POST", "/api/v1/moderation/reports", json={"kind": "thread", "id": 0, "reason": "x"}
            ),
            422,
        ),
        (
            world.outsider.api(
                "POST", "/api/v1/moderation/reports", json={"kind": "thread", "id": "1; DROP"}
            ),
            422,
        ),
        (report(world.outsider, "thread", thread, ""), 422),
        (report(world.outsider, "thread", thread, "x" * 1001), 422),
    ]
    assert [(r.status_code, want) for r, want in forged] == [(w, w) for _, w in forged], [
        r.text for r, _ in forged
    ]
    filed = report(world.outsider, "thread", thread).json()["id"]
    bad = world.admin.api("POST", f"/api/v1/moderation/reports/{filed}/action", json={"action": "delete"})
    assert bad.status_code == 422
    assert (
        world.admin.api(
            "POST", "/api/v1/moderation/reports/999999/action", json={"action": "hide"}
        ).status_code
        == 404
    )
    # The page form: forged kind and id come back with the reason, nothing filed.
    page = world.elsewhere.page_post("/moderation/report", {"kind": "thread", "id": "abc", "reason": "x"})
    assert page.status_code == 404


def test_csrf_and_who_may_call_the_queue(world: World) -> None:
    thread = thread_on(world.student, "add-tensors")
    filed = report(world.outsider, "thread", thread).json()["id"]
    # No CSRF token on a session request: refused, nothing changes.
    no_csrf = [
        world.admin.web.post(f"/moderation/reports/{filed}/action", data={"action": "hide"}),
        world.admin.web.post(f"/api/v1/moderation/reports/{filed}/action", json={"action": "hide"}),
        world.elsewhere.web.post(
            "/moderation/report", data={"kind": "thread", "id": str(thread), "reason": "x"}
        ),
        world.elsewhere.web.post(
            "/api/v1/moderation/reports", json={"kind": "thread", "id": thread, "reason": "x"}
        ),
        world.student.web.post(f"/discussion/threads/{thread}/delete"),
        world.outsider.web.post(f"/discussion/threads/{thread}/vote", data={"up": "1"}),
        world.outsider.web.post(f"/discussion/threads/{thread}/replies", data={"body": "x"}),
    ]
    assert [r.status_code for r in no_csrf] == [403] * len(no_csrf), [r.text[:200] for r in no_csrf]
    assert world.admin.api("GET", f"/api/v1/threads/{thread}").json()["replies"] == 0
    assert queue_ids(world.admin) and filed in queue_ids(world.admin)
    assert world.student.api("GET", f"/api/v1/threads/{thread}").json()["votes"] == 0
    # A student calls the queue: token (no teach scope) and session both refused; anonymous asked to log in.
    assert world.student.api("GET", "/api/v1/moderation/reports").status_code == 403
    assert world.student.session_api("GET", "/api/v1/moderation/reports").status_code == 403
    assert world.student.web.get("/moderation").status_code == 403
    assert (
        world.student.api(
            "POST", f"/api/v1/moderation/reports/{filed}/action", json={"action": "hide"}
        ).status_code
        == 403
    )
    assert (
        world.student.page_post(f"/moderation/reports/{filed}/action", {"action": "hide"}).status_code == 403
    )
    assert anonymous(world.url).get("/api/v1/moderation/reports").status_code == 401
    assert world.admin.api("GET", f"/api/v1/threads/{thread}").status_code == 200


def test_a_user_deletes_their_own_post_through_the_page_and_not_anothers(world: World) -> None:
    thread = thread_on(world.student, "add-tensors")
    reply = reply_on(world.outsider, thread)
    assert world.student.page_post(f"/discussion/replies/{reply}/delete").status_code == 403
    assert world.outsider.page_post(f"/discussion/threads/{thread}/delete").status_code == 403
    assert world.admin.page_post(f"/discussion/threads/{thread}/delete").status_code == 403
    assert world.outsider.page_post(f"/discussion/replies/{reply}/delete").status_code == 303
    page = world.student.web.get(f"/discussion/threads/{thread}").text
    assert "An answer." not in page and "A reply was deleted by its author." in page, page
    assert world.student.page_post(f"/discussion/threads/{thread}/delete").status_code == 303
    assert world.outsider.web.get(f"/discussion/threads/{thread}").status_code == 404
    assert thread not in [
        t["id"] for t in world.outsider.api("GET", "/api/v1/problems/add-tensors/threads").json()["items"]
    ]
