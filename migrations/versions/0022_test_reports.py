"""Test reports: a learner says a case of their submission is wrong; owners and instructors answer.

Revision ID: 0022
Revises: 0021 (the coordinator chains it)
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | Sequence[str] | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "test_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("case_name", sa.String(length=200), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("answered_by_id", sa.Integer(), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("rejudge_id", sa.Integer(), nullable=True),
        sa.Column("rejudge_version_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('open', 'not_a_bug', 'fixed')", name=op.f("ck_test_reports_status")),
        sa.ForeignKeyConstraint(
            ["submission_id"], ["submissions.id"],
            name=op.f("fk_test_reports_submission_id_submissions"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["problem_id"], ["problems.id"],
            name=op.f("fk_test_reports_problem_id_problems"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["reporter_id"], ["users.id"], name=op.f("fk_test_reports_reporter_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["rejudge_id"], ["submissions.id"],
            name=op.f("fk_test_reports_rejudge_id_submissions"), ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_test_reports")),
        sa.UniqueConstraint("submission_id", "case_name", name=op.f("uq_test_reports_submission_case")),
    )  # fmt: skip
    op.create_index("ix_test_reports_problem_id", "test_reports", ["problem_id", "id"])
    op.create_index("ix_test_reports_reporter_id", "test_reports", ["reporter_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_test_reports_reporter_id", table_name="test_reports")
    op.drop_index("ix_test_reports_problem_id", table_name="test_reports")
    op.drop_table("test_reports")
