"""Course analytics: the maintained state per assignment, student and problem (app.analytics).

Empty at first: the analytics pages compute a course's rows the first time they are read
(``app.analytics.state.refresh``), and ``torchdrill analytics rebuild`` fills them all.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | Sequence[str] | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ids(table: str, with_problem: bool = True, with_user: bool = True) -> list[Any]:
    columns: list[Any] = [
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"], ["assignments.id"],
            name=op.f(f"fk_{table}_assignment_id_assignments"), ondelete="CASCADE",
        ),
    ]  # fmt: skip
    if with_problem:
        columns += [
            sa.Column("problem_id", sa.Integer(), nullable=False),
            sa.ForeignKeyConstraint(
                ["problem_id"],
                ["problems.id"],
                name=op.f(f"fk_{table}_problem_id_problems"),
                ondelete="CASCADE",
            ),
        ]
    if with_user:
        columns += [
            sa.Column("user_id", sa.Integer(), nullable=False),
            sa.ForeignKeyConstraint(
                ["user_id"], ["users.id"], name=op.f(f"fk_{table}_user_id_users"), ondelete="CASCADE"
            ),
        ]
    return columns


def upgrade() -> None:
    op.create_table(
        "analytics_assignments",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("problems_key", sa.String(length=64), nullable=False),
        sa.Column("inputs_key", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"], ["assignments.id"],
            name=op.f("fk_analytics_assignments_assignment_id_assignments"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assignment_id", name=op.f("pk_analytics_assignments")),
    )  # fmt: skip
    op.create_table(
        "analytics_windows",
        *_ids("analytics_windows", with_problem=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("assignment_id", "user_id", name=op.f("pk_analytics_windows")),
    )
    op.create_table(
        "analytics_progress",
        *_ids("analytics_progress"),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("first_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("solved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts_to_solve", sa.Integer(), nullable=True),
        sa.Column("minutes_to_solve", sa.Float(), nullable=True),
        sa.Column("best_passed", sa.Integer(), nullable=False),
        sa.Column("best_total", sa.Integer(), nullable=False),
        sa.Column("best_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("since_best", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("assignment_id", "problem_id", "user_id", name=op.f("pk_analytics_progress")),
    )
    op.create_index("ix_analytics_progress_user", "analytics_progress", ["user_id"])
    op.create_table(
        "analytics_failures",
        *_ids("analytics_failures"),
        sa.Column("key", sa.String(length=240), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "assignment_id", "problem_id", "user_id", "key", name=op.f("pk_analytics_failures")
        ),
    )
    op.create_index("ix_analytics_failures_user", "analytics_failures", ["user_id"])
    op.create_table(
        "analytics_kinds",
        *_ids("analytics_kinds"),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "assignment_id", "problem_id", "user_id", "hour", "kind", name=op.f("pk_analytics_kinds")
        ),
    )
    op.create_index("ix_analytics_kinds_user", "analytics_kinds", ["user_id"])
    op.create_table(
        "analytics_case_totals",
        *_ids("analytics_case_totals", with_user=False),
        sa.Column("key", sa.String(length=240), nullable=False),
        sa.Column("students", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("assignment_id", "problem_id", "key", name=op.f("pk_analytics_case_totals")),
    )
    op.create_table(
        "analytics_kind_totals",
        *_ids("analytics_kind_totals", with_user=False),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "assignment_id", "problem_id", "hour", "kind", name=op.f("pk_analytics_kind_totals")
        ),
    )


def downgrade() -> None:
    op.drop_table("analytics_kind_totals")
    op.drop_table("analytics_case_totals")
    for table in ("analytics_kinds", "analytics_failures", "analytics_progress"):
        op.drop_index(f"ix_{table}_user", table_name=table)
        op.drop_table(table)
    op.drop_table("analytics_windows")
    op.drop_table("analytics_assignments")
