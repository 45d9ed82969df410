"""The per-user row that makes the submission limit atomic (``app.submissions.limit``).

Every new submission first upserts its user's row, in its own transaction: concurrent submissions
of one user queue on that row (PostgreSQL's row lock; SQLite's single writer), so each one counts
the submissions committed before it, and a burst cannot pass the per-minute limit.

Revision ID: 0021
Revises: 0015 (the coordinator chains it)
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | Sequence[str] | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "submission_gates",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_submission_gates_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_submission_gates")),
    )


def downgrade() -> None:
    op.drop_table("submission_gates")
