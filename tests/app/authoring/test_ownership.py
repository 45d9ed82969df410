"""Ownership in authoring, attacked through real HTTP for each role and every route.

Roles: the author (an instructor), a co-author, another instructor (who teaches another course),
a student, an anonymous visitor and an admin. Routes: the JSON API with a token, the same API from
the editor's session (CSRF header), the editor's pages (forms with the CSRF field) and the zip
import (a zip naming an existing slug, by its folder or by the form's slug). A refused attempt
changes nothing: the draft, the live version and the owners are read back after each one.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.app.authoring.people import AUTHORING, Person, anonymous, zipped
from tests.app.authoring.world import BANK, World, assign, publish, world
from tests.app.cli.conftest import live_server

__all__ = ["live_server", "world"]


def _state(world: World) -> dict[str, Any]:
    """What the admin sees of the problem: working copy, live version, published, scope, owners."""
    ws = world.admin.api("GET", f"{AUTHORING}/{world.slug}").json()
    owners = world.admin.api("GET", f"{AUTHORING}/{world.slug}/owners").json()["owners"]
    return {
        "files": ws["files"],
        "source": ws["source"],
        "live": ws["live_version"],
        "published": ws["published"],
        "course_only": ws["course_only"],
        "owners": sorted((o["email"], o["role"]) for o in owners),
    }


def _every_write(world: World, who: Person, slug: str) -> list[tuple[str, httpx.Response]]:
    """Every way to change problem ``slug``: token API, session API with CSRF, pages, zip import."""
    changed = {**world.files, "learn.md": "Taken over.\n"}
    form = {"email": who.email}
    api = f"{AUTHORING}/{slug}"
    attempts = [
        ("api save", who.api("PUT", api, json={"files": changed})),
        ("api publish", who.api("POST", f"{api}/publish")),
        ("api unpublish", who.api("POST", f"{api}/unpublish")),
        ("api discard", who.api("DELETE", f"{api}/draft")),
        ("api site-wide", who.api("PUT", f"{api}/site-wide", json={"site_wide": True})),
        ("api add self", who.api("POST", f"{api}/owners", json=form)),
        ("session save", who.session_api("PUT", api, json={"files": changed})),
        ("session publish", who.session_api("POST", f"{api}/publish")),
        ("session unpublish", who.session_api("POST", f"{api}/unpublish")),
        ("session add self", who.session_api("POST", f"{api}/owners", json=form)),
        ("page publish", who.page_post(f"/authoring/problems/{slug}/publish")),
        ("page unpublish", who.page_post(f"/authoring/problems/{slug}/unpublish")),
        ("page discard", who.page_post(f"/authoring/problems/{slug}/discard")),
        ("page site-wide", who.page_post(f"/authoring/problems/{slug}/site-wide", {"site_wide": "true"})),
        ("page add self", who.page_post(f"/authoring/problems/{slug}/owners", form)),
        (
            "page remove author",
            who.page_post(f"/authoring/problems/{slug}/owners/{world.author.user_id}/remove"),
        ),
        ("api remove author", who.api("DELETE", f"{api}/owners/{world.author.user_id}")),
        (
            "api zip by folder",
            who.api("POST", "/api/v1/authoring/import", files={"file": ("p.zip", zipped(slug, changed))}),
        ),
        (
            "api zip by slug",
            who.api(
                "POST",
                "/api/v1/authoring/import",
                data={"slug": slug},
                files={"file": ("p.zip", zipped(None, changed))},
            ),
        ),
        (
            "page zip by folder",
            who.web.post(
                "/authoring/upload",
                data={"csrf_token": who.csrf()},
                files={"file": ("p.zip", zipped(slug, changed))},
            ),
        ),
        (
            "page zip by slug",
            who.web.post(
                "/authoring/upload",
                data={"csrf_token": who.csrf(), "slug": slug},
                files={"file": ("p.zip", zipped(None, changed))},
            ),
        ),
    ]
    editor_form = {"toml_source": "", "slug": slug, "title": "Taken over", "statement": "x"}
    attempts.append(("page save", who.page_post(f"/authoring/problems/{slug}", editor_form)))
    return attempts


def _every_read(who: Person, slug: str) -> list[tuple[str, httpx.Response]]:
    api = f"{AUTHORING}/{slug}"
    return [
        ("api workspace", who.api("GET", api)),
        ("api export", who.api("GET", f"{api}/export?format=json")),
        ("api export zip", who.api("GET", f"{api}/export?source=live")),
        ("api validate", who.api("POST", f"{api}/validate")),
        ("api owners", who.api("GET", f"{api}/owners")),
        ("page editor", who.web.get(f"/authoring/problems/{slug}")),
        ("page download", who.web.get(f"/authoring/problems/{slug}/download")),
    ]


def test_another_instructor_changes_and_reads_nothing_of_a_course_only_problem(world: World) -> None:
    publish(world)
    before = _state(world)
    for who in (world.other, world.coauthor):  # the co-author is not one yet
        for name, response in _every_write(world, who, world.slug) + _every_read(who, world.slug):
            # a course-only problem is not theirs to know of: the 404 of an unknown slug
            assert response.status_code == 404, (name, response.status_code, response.text[:300])
            assert "Taken over" not in response.text
        assert world.slug not in who.api("GET", AUTHORING).text
        assert world.slug not in who.web.get("/authoring").text
    assert _state(world) == before


def test_students_and_anonymous_visitors_reach_no_authoring_route(world: World) -> None:
    publish(world)
    before = _state(world)
    for who in (world.student, world.outsider):
        for name, response in _every_write(world, who, world.slug) + _every_read(who, world.slug):
            assert response.status_code == 403, (name, response.status_code, response.text[:300])
    guest = anonymous(world.url)
    for method, path in [("GET", f"{AUTHORING}/{world.slug}"), ("PUT", f"{AUTHORING}/{world.slug}"),
                         ("POST", f"{AUTHORING}/{world.slug}/publish"), ("GET", AUTHORING)]:  # fmt: skip
        assert guest.request(method, path, json={"files": {}}).status_code == 401, path
    page = guest.post(f"/authoring/problems/{world.slug}/publish", data={})
    assert page.status_code in (303, 401, 403)  # sent to log in (or refused), never published
    assert _state(world) == before


def test_writes_without_the_csrf_token_are_refused_even_for_the_author(world: World) -> None:
    before = _state(world)
    bare = world.author.web
    for path in (f"/authoring/problems/{world.slug}/publish", f"/authoring/problems/{world.slug}/unpublish"):
        assert bare.post(path, data={}).status_code == 403
        assert bare.post(path, data={"csrf_token": "forged"}).status_code == 403
    forged = bare.put(f"{AUTHORING}/{world.slug}", json={"files": world.files}, headers={"X-CSRF-Token": "x"})
    assert forged.status_code == 403 and forged.json()["error"] == "csrf_failed"
    assert _state(world) == before


def test_the_shipped_bank_belongs_to_admins(world: World) -> None:
    """An instructor is told 403 (the problem is public anyway) on every write to a bank problem."""
    public = world.outsider.web.get(f"/problems/{BANK}").text
    for who in (world.author, world.other):
        for name, response in _every_write(world, who, BANK) + _every_read(who, BANK):
            assert response.status_code == 403, (name, response.status_code, response.text[:300])
        assert BANK not in who.api("GET", AUTHORING).text
    assert world.outsider.web.get(f"/problems/{BANK}").text == public
    # the admin may read it (and would edit it); the listing shows every problem
    assert world.admin.api("GET", f"{AUTHORING}/{BANK}").status_code == 200
    assert BANK in world.admin.api("GET", f"{AUTHORING}?limit=100").text
    owners = world.admin.api("GET", f"{AUTHORING}/{BANK}/owners").json()["owners"]
    assert owners == []


def test_co_authors_edit_and_only_the_author_manages_them(world: World) -> None:
    slug, author, co, other = world.slug, world.author, world.coauthor, world.other
    owners = f"{AUTHORING}/{slug}/owners"
    # nobody adds themselves: not an outsider, not a student, not by the page
    assert co.api("POST", owners, json={"email": co.email}).status_code == 404
    assert world.student.api("POST", owners, json={"email": world.student.email}).status_code == 403
    # the author adds a co-author; a student cannot be one; nor can a ghost
    added = author.api("POST", owners, json={"email": co.email})
    assert added.status_code == 201 and added.json()["role"] == "coauthor", added.text
    assert author.api("POST", owners, json={"email": co.email}).status_code == 409
    student = author.api("POST", owners, json={"email": world.student.email})
    assert student.status_code == 422 and "not an instructor" in student.json()["detail"]
    assert author.api("POST", owners, json={"email": "ghost@example.com"}).status_code == 404
    # the co-author edits and publishes …
    edited = {**world.files, "learn.md": world.files["learn.md"] + "\nCo-written.\n"}
    assert co.api("PUT", f"{AUTHORING}/{slug}", json={"files": edited}).status_code == 200
    assert publish(world, by=co) == 1
    assert slug in co.api("GET", AUTHORING).text
    # … but does not manage owners: adding another instructor, or removing the author, is refused
    refused = co.api("POST", owners, json={"email": other.email})
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert co.page_post(f"/authoring/problems/{slug}/owners", {"email": other.email}).status_code == 403
    assert co.api("DELETE", f"{owners}/{author.user_id}").status_code == 403
    assert author.api("DELETE", f"{owners}/{author.user_id}").status_code == 409  # the author stays
    assert sorted(o["email"] for o in author.api("GET", owners).json()["owners"]) == sorted(
        [author.email, co.email]
    )
    # removed, the co-author can do nothing more, by any route
    removed = author.page_post(f"/authoring/problems/{slug}/owners/{co.user_id}/remove")
    assert removed.status_code == 303
    before = _state(world)
    for name, response in _every_write(world, co, slug) + _every_read(co, slug):
        assert response.status_code == 404, (name, response.status_code)
    assert _state(world) == before
    # a co-author may leave by themselves
    assert author.api("POST", owners, json={"email": other.email}).status_code == 201
    assert other.api("DELETE", f"{owners}/{other.user_id}").status_code == 204
    assert other.api("GET", f"{AUTHORING}/{slug}").status_code == 404


def test_instructors_create_problems_only_in_courses_they_teach(world: World) -> None:
    files = world.files
    no_course = world.author.api("POST", AUTHORING, json={"slug": "no-course-1", "files": files})
    assert no_course.status_code == 422 and "Choose the course" in no_course.json()["detail"]
    body = {"slug": "not-my-course", "files": files, "course_id": world.other_course_id}
    foreign = world.author.api("POST", AUTHORING, json=body)
    assert foreign.status_code == 422 and "do not teach" in foreign.json()["detail"]
    body["course_id"] = 2**31 - 1
    assert world.author.api("POST", AUTHORING, json=body).status_code == 422
    upload = world.author.api(
        "POST", "/api/v1/authoring/import", data={"course_id": str(world.other_course_id)},
        files={"file": ("p.zip", zipped("zip-not-my-course", files))},
    )  # fmt: skip
    assert upload.status_code == 422
    page = world.author.page_post(
        "/authoring/new", {"slug": "page-no-course", "toml_source": "", "title": "T"}
    )
    assert page.status_code == 422
    # nothing was created
    for slug in ("no-course-1", "not-my-course", "zip-not-my-course", "page-no-course"):
        assert world.admin.api("GET", f"{AUTHORING}/{slug}").status_code == 404
    # an admin's problem without a course is site-wide; its author is the admin
    admin = world.admin.api("POST", AUTHORING, json={"slug": f"site-{uuid.uuid4().hex[:6]}", "files": files})
    assert admin.status_code == 201 and admin.json()["course_only"] is False


def test_save_draft_never_changes_what_learners_see_and_publish_shows_its_version(world: World) -> None:
    assert publish(world) == 1
    assert assign(world).status_code == 201
    slug, student = world.slug, world.student
    page = student.web.get(f"/problems/{slug}")
    detail = student.api("GET", f"/api/v1/problems/{slug}").json()
    assert page.status_code == 200
    changed = {**world.files, "learn.md": "A draft nobody sees.\n"}
    # by the API, the editor's fetch and the editor page: a draft, every time
    saved = world.author.api("PUT", f"{AUTHORING}/{slug}", json={"files": changed}).json()
    assert saved["live_version"] == 1 and "still see version 1" in saved["message"]
    assert world.author.session_api("PUT", f"{AUTHORING}/{slug}", json={"files": changed}).status_code == 200
    assert student.api("GET", f"/api/v1/problems/{slug}").json() == detail
    assert "A draft nobody sees." not in student.web.get(f"/problems/{slug}").text
    before = _judged_on(world)
    # Publish does change it, and says which version it made
    assert publish(world) == 2
    assert "A draft nobody sees." in student.web.get(f"/problems/{slug}").text
    assert _judged_on(world) != before


def _judged_on(world: World) -> int:
    """The version a submission of the student's is judged on now."""
    body = {"problem": world.slug, "code": world.files["solution.py"], "mode": "run"}
    submitted = world.student.api("POST", "/api/v1/submissions?wait=true", json=body)
    assert submitted.status_code in (200, 201, 202), submitted.text
    version: int = submitted.json()["problem_version_id"]
    return version


def test_the_editor_offers_each_role_only_what_it_may_do(world: World) -> None:
    slug = world.slug
    assert (
        world.author.api(
            "POST", f"{AUTHORING}/{slug}/owners", json={"email": world.coauthor.email}
        ).status_code
        == 201
    )
    mine = world.author.web.get(f"/authoring/problems/{slug}").text
    assert 'id="add-owner-form"' in mine and 'id="site-wide-form"' not in mine
    assert "Course-only" in mine and f"course #{world.course_id}" in mine
    theirs = world.coauthor.web.get(f"/authoring/problems/{slug}").text
    assert 'id="add-owner-form"' not in theirs and ">Leave</button>" in theirs
    admin = world.admin.web.get(f"/authoring/problems/{slug}").text
    assert 'id="add-owner-form"' in admin and "Publish site-wide" in admin
    new = world.author.web.get("/authoring/new").text
    assert f'<option value="{world.course_id}" selected>' in new
    assert f'value="{world.other_course_id}"' not in new  # only the courses they teach
    listed = world.author.web.get("/authoring").text
    assert f"/authoring/problems/{slug}" in listed and "its course" in listed
