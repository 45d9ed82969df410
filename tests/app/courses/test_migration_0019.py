"""Migration 0019 gives existing student memberships one enrolment period from when they were
enrolled: open for active students, closed for removed or blocked ones; instructors get none. And
on SQLite (foreign keys on) neither the upgrade nor the downgrade loses a course's rows: recreating
``courses`` would cascade to them."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import create_engine, text

from tests.app.progress.test_backfill import _alembic


def test_upgrade_backfills_periods_from_existing_memberships(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'courses.db'}"
    cfg = _alembic(url)
    command.upgrade(cfg, "0015")
    engine = create_engine(url)
    enrolled = "2026-01-02 03:04:05.000000"
    with engine.begin() as conn:  # rows as the old schema held them, written straight to its tables
        for uid in (1, 2, 3, 4):
            conn.execute(
                text(
                    "INSERT INTO users (id, email, password_hash, role, created_at) "
                    "VALUES (:i, :e, 'x', :r, :t)"
                ),
                {
                    "i": uid,
                    "e": f"u{uid}@example.com",
                    "r": "instructor" if uid == 1 else "student",
                    "t": enrolled,
                },
            )
        conn.execute(
            text(
                "INSERT INTO courses (id, title, term, timezone, owner_id, join_code, created_at) "
                "VALUES (1, 'Old', '', 'UTC', 1, 'OLDCODE1', :t)"
            ),
            {"t": enrolled},
        )
        for uid, role, status in ((1, "instructor", "active"), (2, "student", "active"),
                                  (3, "student", "removed"), (4, "student", "blocked")):  # fmt: skip
            conn.execute(
                text(
                    "INSERT INTO course_members (course_id, user_id, role, status, section, created_at) "
                    "VALUES (1, :u, :r, :s, '', :t)"
                ),
                {"u": uid, "r": role, "s": status, "t": enrolled},
            )
        conn.execute(
            text(
                "INSERT INTO course_invitations (course_id, email, section, code, created_at) "
                "VALUES (1, 'new@example.com', '', 'INVITE0001', :t)"
            ),
            {"t": enrolled},
        )
        conn.execute(
            text(
                "INSERT INTO assignments (course_id, title, release_at, due_at, late, after_last,"
                " created_at) VALUES (1, 'Week 1', :t, :t, '[]', 'zero', :t)"
            ),
            {"t": enrolled},
        )

    def counts() -> list[int]:
        with engine.connect() as conn:
            return [
                conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
                for table in ("courses", "course_members", "course_invitations", "assignments")
            ]

    assert counts() == [1, 4, 1, 1]
    command.upgrade(cfg, "head")
    assert counts() == [1, 4, 1, 1]
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT user_id, joined_at, left_at FROM course_enrolment_periods ORDER BY user_id")
        ).all()
        only = conn.execute(text("SELECT invitation_only FROM courses")).scalar_one()
    command.downgrade(cfg, "0015")
    assert counts() == [1, 4, 1, 1]
    engine.dispose()
    assert [(r[0], str(r[1]).startswith("2026-01-02 03:04:05"), r[2] is None) for r in rows] == [
        (2, True, True),
        (3, True, False),
        (4, True, False),
    ]
    assert not only
