"""Migration 0029 drops ``analytics_assignments.inputs_key`` (written, never read) and keeps every
assignment's row and its ``problems_key``; downgrading brings the column back, empty. On SQLite
(the table rebuilt) and PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from app.accounts.service import sign_up
from app.courses.enrolment import create_course
from app.courses.models import Assignment
from app.kit.db import Database, utcnow
from tests.app.conftest import BACKENDS, PASSWORD, _postgres_database
from tests.app.progress.test_backfill import _alembic

TABLE = "analytics_assignments"
KEPT = "assignment_id, problems_key"


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'analytics.db'}"
        return
    url, drop = _postgres_database(os.environ["TORCHDRILL_TEST_DATABASE_URL"])
    try:
        yield url
    finally:
        drop()


def _columns(url: str) -> list[str]:
    engine = sa.create_engine(url)
    try:
        return [c["name"] for c in sa.inspect(engine).get_columns(TABLE)]
    finally:
        engine.dispose()


def _rows(url: str, columns: str) -> list[tuple[object, ...]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(f"SELECT {columns} FROM {TABLE}"))]
    finally:
        engine.dispose()


def test_the_column_goes_and_comes_back_and_the_rows_stay(empty_url: str) -> None:
    cfg = _alembic(empty_url)
    command.upgrade(cfg, "0028")
    db = Database(empty_url)
    now = utcnow()
    with db.transaction() as session:  # an assignment whose state was computed before 0029
        teacher = sign_up(session, "teacher-0029@example.com", PASSWORD, role="instructor")
        course = create_course(session, teacher, "Before 0029")
        session.add(
            Assignment(course_id=course.id, title="Week 1", release_at=now, due_at=now + timedelta(days=7))
        )
        session.flush()
        assignment_id = session.scalar(sa.select(Assignment.id).where(Assignment.course_id == course.id))
        session.execute(
            sa.text(f"INSERT INTO {TABLE} (assignment_id, problems_key, inputs_key) VALUES (:a, 'p', 'i')"),
            {"a": assignment_id},
        )
    db.dispose()
    assert _rows(empty_url, KEPT) == [(assignment_id, "p")] and "inputs_key" in _columns(empty_url)

    command.upgrade(cfg, "head")
    assert "inputs_key" not in _columns(empty_url) and _rows(empty_url, KEPT) == [(assignment_id, "p")]

    command.downgrade(cfg, "0028")
    assert _rows(empty_url, "assignment_id, problems_key, inputs_key") == [(assignment_id, "p", "")]
    command.upgrade(cfg, "head")  # and up again
    assert "inputs_key" not in _columns(empty_url) and _rows(empty_url, KEPT) == [(assignment_id, "p")]
