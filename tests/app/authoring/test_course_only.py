"""A course-only problem never shows outside its course: every read route, every listing, for
students of another course, students of none, another course's instructor and anonymous visitors
guessing its slug, through real HTTP. Only an admin publishes it site-wide."""

from __future__ import annotations

import uuid
from datetime import timedelta

import httpx
from sqlalchemy import update

from app.courses.models import REMOVED, CourseMember
from app.kit.db import Database
from tests.app.authoring.people import AUTHORING, Person, anonymous
from tests.app.authoring.world import World, assign, publish, world
from tests.app.cli.conftest import live_server

__all__ = ["live_server", "world"]

TRACK = "pytorch-advanced"  # the walkthrough's category's track
WORDS = "every+linear+layer"  # from the walkthrough's title: a search that would find it


def _reads(who: Person | httpx.Client, slug: str, code: str) -> dict[str, httpx.Response]:
    """Every route that reads or acts on one problem, as a session (pages) and a token (API v1)."""
    if isinstance(who, Person):
        api, web, csrf = who.api, who.web, {"X-CSRF-Token": who.csrf()}
    else:
        api, web, csrf = who.request, who, {}
    submit = {"code": code, "mode": "run"}
    return {
        "page": web.get(f"/problems/{slug}"),
        "v1 detail": api("GET", f"/api/v1/problems/{slug}"),
        "hints": web.get(f"/api/problems/{slug}/hints"),
        "v1 hints": api("GET", f"/api/v1/problems/{slug}/hints"),
        "v1 next hint": api("POST", f"/api/v1/problems/{slug}/hints/next"),
        "page next hint": web.post(f"/api/problems/{slug}/hints/next", headers=csrf),
        "page submit": web.post(f"/api/problems/{slug}/submissions", json=submit, headers=csrf),
        "v1 submit": api("POST", "/api/v1/submissions", json={"problem": slug, **submit}),
        "history": web.get(f"/api/problems/{slug}/submissions"),
        "v1 history": api("GET", f"/api/v1/submissions?problem={slug}"),
        "draft": web.get(f"/api/problems/{slug}/draft"),
        "save draft": web.put(f"/api/problems/{slug}/draft", json={"code": code}, headers=csrf),
    }


def _listings(who: Person | httpx.Client, slug: str) -> dict[str, str]:
    api = who.api if isinstance(who, Person) else who.request
    web = who.web if isinstance(who, Person) else who
    return {
        "problem list": web.get("/problems").text,
        "search": web.get(f"/problems?q={WORDS}").text,
        "category": web.get("/problems?category=PyTorch+Advanced").text,
        "api list": web.get("/api/problems").text,
        "api search": web.get(f"/api/problems?q={WORDS}").text,
        "v1 list": api("GET", "/api/v1/problems?limit=100").text,
        "v1 search": api("GET", f"/api/v1/problems?q={WORDS}").text,
        "tracks": web.get("/tracks").text,
        "track": web.get(f"/tracks/{TRACK}").text,
        "v1 tracks": api("GET", "/api/v1/tracks").text,
        "v1 track": api("GET", f"/api/v1/tracks/{TRACK}").text,
        "bank problem page": web.get("/problems/add-tensors").text,  # related problems, next links
        "account": web.get("/account").text,
    }


def _unknown(response: httpx.Response, slug: str, decoy: str) -> bool:
    """A 404 worded exactly as for a slug that does not exist (``decoy``)."""
    return response.status_code == 404 and decoy in response.text.replace(slug, decoy)


def test_outside_its_course_a_course_only_problem_does_not_exist(world: World) -> None:
    publish(world)
    assert assign(world).status_code == 201
    slug, code = world.slug, world.files["solution.py"]
    decoy = "x" * len(slug)
    guest = anonymous(world.url)
    people: list[tuple[str, Person | httpx.Client]] = [
        ("another course's student", world.elsewhere),
        ("a student of no course", world.outsider),
        ("another course's instructor", world.other),
        ("anonymous", guest),
    ]
    for name, who in people:
        for route, response in _reads(who, slug, code).items():
            if isinstance(who, httpx.Client) and response.status_code == 401:
                continue  # routes that need a sign-in say so before they look the slug up
            if response.status_code == 403 and response.json().get("error") == "csrf_failed":
                continue  # anonymous: no CSRF token, refused before the slug
            assert _unknown(response, slug, decoy), (name, route, response.status_code, response.text[:300])
        for route, text in _listings(who, slug).items():
            assert slug not in text, (name, route)
    assert guest.get("/sitemap.xml").status_code == 404  # no sitemap or feed to leak it through


def test_inside_its_course_its_students_work_on_it_but_it_joins_no_public_list(world: World) -> None:
    publish(world)
    assert assign(world).status_code == 201
    slug, code = world.slug, world.files["solution.py"]
    for who in (world.student, world.author, world.admin):
        reads = _reads(who, slug, code)
        assert reads["page"].status_code == 200 and reads["v1 detail"].json()["slug"] == slug
        assert reads["hints"].status_code == 200 and reads["v1 hints"].status_code == 200
        assert reads["page submit"].status_code == 202 and reads["v1 submit"].status_code in (201, 202)
        assert reads["save draft"].status_code == 200
        assert 'class="track-nav' not in reads["page"].text  # no previous/next into a public track
        for route, text in _listings(who, slug).items():
            assert slug not in text, (who.email, route)
    # the course shows it to its student
    assert slug in world.student.api("GET", f"/api/v1/courses/{world.course_id}").text


def test_before_its_release_and_after_leaving_the_course_students_do_not_see_it(
    world: World, db: Database
) -> None:
    publish(world)
    assert assign(world, released_ago=timedelta(days=-2)).status_code == 201  # released in two days
    assert world.student.web.get(f"/problems/{world.slug}").status_code == 404
    assert world.author.web.get(f"/problems/{world.slug}").status_code == 200  # its instructor does
    assert assign(world).status_code == 201  # a second assignment, released an hour ago
    assert world.student.web.get(f"/problems/{world.slug}").status_code == 200
    with db.transaction() as session:  # the student is removed from the course
        session.execute(
            update(CourseMember)
            .where(CourseMember.user_id == world.student.user_id, CourseMember.course_id == world.course_id)
            .values(status=REMOVED)
        )
    assert world.student.web.get(f"/problems/{world.slug}").status_code == 404


def test_another_course_cannot_assign_it(world: World) -> None:
    publish(world)
    body = {"title": "Borrowed", "problems": [world.slug], "release_at": "2026-01-01T00:00:00+00:00",
            "due_at": "2026-02-01T00:00:00+00:00"}  # fmt: skip
    borrowed = world.other.api("POST", f"/api/v1/courses/{world.other_course_id}/assignments", json=body)
    assert borrowed.status_code == 422 and "no published problem" in borrowed.json()["detail"]
    # an admin cannot put it in another course either: the problem is that course's
    assert (
        world.admin.api("POST", f"/api/v1/courses/{world.other_course_id}/assignments", json=body).status_code
        == 422
    )
    assert (
        world.author.api("POST", f"/api/v1/courses/{world.course_id}/assignments", json=body).status_code
        == 201
    )


def test_only_an_admin_publishes_it_site_wide(world: World) -> None:
    publish(world)
    slug, outsider = world.slug, world.outsider
    for who in (world.author, world.coauthor, world.other, world.student):
        api = who.api("PUT", f"{AUTHORING}/{slug}/site-wide", json={"site_wide": True})
        page = who.page_post(f"/authoring/problems/{slug}/site-wide", {"site_wide": "true"})
        assert api.status_code in (403, 404) and page.status_code in (403, 404), who.email
    assert outsider.web.get(f"/problems/{slug}").status_code == 404
    made = world.admin.page_post(f"/authoring/problems/{slug}/site-wide", {"site_wide": "true"})
    assert made.status_code == 303 and "notice=site-wide" in made.headers["location"]
    assert outsider.web.get(f"/problems/{slug}").status_code == 200
    assert (
        slug in outsider.web.get(f"/tracks/{TRACK}").text
        and slug in outsider.web.get(f"/problems?q={WORDS}").text
    )
    # the author still owns it; other instructors still cannot change it (now 403: it is public)
    assert world.other.api("POST", f"{AUTHORING}/{slug}/unpublish").status_code == 403
    back = world.admin.api("PUT", f"{AUTHORING}/{slug}/site-wide", json={"site_wide": False})
    assert back.status_code == 200 and back.json()["course_only"] is True
    assert outsider.web.get(f"/problems/{slug}").status_code == 404
    assert slug not in outsider.web.get(f"/tracks/{TRACK}").text


def test_guessing_slugs_tells_nothing(world: World) -> None:
    """Unpublished, course-only and unknown slugs answer alike to another course's people."""
    publish(world)
    unknown = f"no-such-{uuid.uuid4().hex[:6]}"
    for who in (world.elsewhere, world.other):
        seen = who.api("GET", f"/api/v1/problems/{world.slug}")
        missing = who.api("GET", f"/api/v1/problems/{unknown}")
        assert seen.status_code == missing.status_code == 404
        assert seen.json()["error"] == missing.json()["error"] == "not_found"
