"""The ownership tests' world: an author with a course-only problem, the people around it, and
their courses, all through the live server (``live_server``, uvicorn on 127.0.0.1)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import httpx
import pytest

from app.accounts.service import get_user_by_email
from app.courses.enrolment import create_course
from app.courses.models import STUDENT, CourseMember
from app.kit.db import Database, utcnow
from tests.app.authoring.helpers import WALKTHROUGH
from tests.app.authoring.people import AUTHORING, Person, person

BANK = "add-tensors"  # a shipped problem: no owners, so admins only


@dataclass
class World:
    url: str
    author: Person
    coauthor: Person  # an instructor, not yet a co-author
    other: Person  # an instructor of another course
    admin: Person
    student: Person  # in the author's course
    elsewhere: Person  # a student of the other course
    outsider: Person  # a student in no course
    course_id: int
    other_course_id: int
    slug: str
    files: dict[str, str]


def course(db: Database, owner: Person, students: list[Person]) -> int:
    with db.transaction() as session:
        course = create_course(
            session, get_user_by_email(session, owner.email), "Course " + uuid.uuid4().hex[:6]
        )
        for s in students:
            session.add(CourseMember(course_id=course.id, user_id=s.user_id, role=STUDENT))
        return course.id


@pytest.fixture
def world(live_server: str, db: Database, walkthrough_files: dict[str, str]) -> Iterator[World]:
    people = {
        name: person(live_server, db, role)
        for name, role in [
            ("author", "instructor"),
            ("coauthor", "instructor"),
            ("other", "instructor"),
            ("admin", "admin"),
            ("student", "student"),
            ("elsewhere", "student"),
            ("outsider", "student"),
        ]
    }
    course_id = course(db, people["author"], [people["student"]])
    other_course_id = course(db, people["other"], [people["elsewhere"]])
    slug = f"{WALKTHROUGH}-{uuid.uuid4().hex[:6]}"
    created = people["author"].api(
        "POST",
        AUTHORING,
        json={  # with fields an attacker would add (mass assignment): ignored
            "slug": slug,
            "files": walkthrough_files,
            "course_id": course_id,
            "course_only": False,
            "site_wide": True,
            "owners": [],
        },
    )
    assert created.status_code == 201, created.text
    assert created.json()["course_only"] is True
    yield World(live_server, **people, course_id=course_id, other_course_id=other_course_id, slug=slug,
                files=walkthrough_files)  # fmt: skip
    for p in people.values():
        p.web.close()


def publish(world: World, by: Person | None = None) -> int:
    published = (by or world.author).api("POST", f"{AUTHORING}/{world.slug}/publish")
    assert published.status_code == 200, published.text
    version: int = published.json()["live_version"]
    assert published.json()["message"] == f"Published: students now see version {version}."
    return version


def assign(world: World, released_ago: timedelta = timedelta(hours=1)) -> httpx.Response:
    now = utcnow()
    body = {
        "title": "Week 1",
        "problems": [world.slug],
        "release_at": (now - released_ago).isoformat(),
        "due_at": (now + timedelta(days=7)).isoformat(),
    }
    return world.author.api("POST", f"/api/v1/courses/{world.course_id}/assignments", json=body)
