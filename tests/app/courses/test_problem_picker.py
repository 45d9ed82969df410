"""The problem picker's search: only what the course may put in an assignment (site problems and
its own course-only ones; never another course's, never an unpublished one), to its instructors only,
and the same choices in the no-script list."""

from __future__ import annotations

import uuid
from pathlib import Path

from sqlalchemy import update

from app.kit.db import Database
from app.kit.runner import JudgeRunner
from app.problems.models import Problem
from tests.app.courses.test_instructor_forms import instructor, new_course, post
from tests.app.courses.test_regrades import RIGHT, _publish


def _course_id(url: str) -> int:
    return int(url.rsplit("/", 1)[1])


def _own_problem(
    db: Database, runner: JudgeRunner, bank: Path, course_id: int | None, **values: object
) -> str:
    slug = f"own-{uuid.uuid4().hex[:8]}"
    _publish(db, runner, bank / slug, slug, RIGHT)  # a bank of its own: the others are course-only now
    with db.transaction() as session:
        session.execute(
            update(Problem)
            .where(Problem.slug == slug)
            .values(course_only=True, course_id=course_id, **values)
        )
    return slug


def _slugs(b, course: str, q: str = "") -> list[str]:
    answer = b.get(f"{course}/problem-choices", params={"q": q})
    assert answer.status_code == 200, answer.text
    return [c["slug"] for c in answer.json()["choices"]]


def test_the_search_offers_site_and_own_problems_only(
    new_browser, db: Database, runner: JudgeRunner, tmp_path: Path
) -> None:
    teacher, other = instructor(new_browser, db), instructor(new_browser, db)
    course, elsewhere = new_course(teacher), new_course(other)
    mine = _own_problem(db, runner, tmp_path, _course_id(course))
    theirs = _own_problem(db, runner, tmp_path, _course_id(elsewhere))
    orphan = _own_problem(db, runner, tmp_path, None)  # its course was deleted
    hidden = _own_problem(db, runner, tmp_path, _course_id(course), published=False)

    everything = _slugs(teacher, course)
    assert everything[0] == mine  # the course's own first
    assert "add-tensors" in everything and theirs not in everything and orphan not in everything
    assert hidden not in everything
    answer = teacher.get(f"{course}/problem-choices", params={"q": "add"}).json()["choices"]
    assert answer and all("add" in c["slug"] or "add" in c["title"].lower() for c in answer)
    first = next(c for c in answer if c["slug"] == "add-tensors")
    assert set(first) == {"slug", "title", "difficulty", "premium", "course_only"}
    assert _slugs(teacher, course, mine) == [mine]
    assert _slugs(teacher, course, theirs) == []  # a guessed slug of another course finds nothing
    assert _slugs(other, elsewhere, mine) == []
    for wildcard in ("%", "_", "\\", "%%", "' OR 1=1 --"):  # LIKE wildcards and quotes are text
        assert _slugs(teacher, course, wildcard) == [], wildcard
    assert teacher.get(f"{course}/problem-choices", params={"q": "x" * 101}).status_code == 422

    page = teacher.get(course).text  # the no-script list holds the same choices
    assert f'<option value="{mine}"' in page and f'<option value="{theirs}"' not in page
    assert 'value="add-tensors"' in page and "add-tensors, scale-rows" not in page  # no made-up placeholder
    refused = post(teacher, f"{course}/assignments", {"title": "T", "problems": [theirs],
                   "release_at": "2030-01-01T00:00", "due_at": "2030-01-02T00:00"}, course)  # fmt: skip
    assert refused.status_code == 422 and "no published problem" in refused.text


def test_only_the_courses_instructors_may_search(new_browser, db: Database) -> None:
    teacher, other = instructor(new_browser, db), instructor(new_browser, db)
    student, anonymous = new_browser(), new_browser()
    assert student.signup().status_code == 303
    course = new_course(teacher)
    code = teacher.get(course).text.split('id="join-code">', 1)[1].split("<", 1)[0]
    assert post(student, "/courses/join", {"code": code}).status_code == 303
    for who in (student, other):
        assert who.get(f"{course}/problem-choices").status_code == 404
    assert anonymous.get(f"{course}/problem-choices").status_code in (401, 303)
    assert teacher.get("/courses/999999/problem-choices").status_code == 404
