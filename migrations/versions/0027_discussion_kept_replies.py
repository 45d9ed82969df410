"""A thread its author deleted while it had replies stays listed as "[deleted]": the listings'
partial indexes hold ``hidden_at IS NULL AND (deleted_at IS NULL OR reply_count > 0)``; and the
moderation queue reads its open reports from a partial index of them (PostgreSQL walked the primary
key backwards through every answered report) and an instructor's from ``(problem_id, status, id)``.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | Sequence[str] | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEXES = (("new", ["problem_id", "id"]), ("votes", ["problem_id", "votes", "id"]))


def _rebuild(where: str) -> None:
    for name, columns in _INDEXES:
        op.drop_index(f"ix_discussion_threads_visible_{name}", table_name="discussion_threads")
        op.create_index(
            f"ix_discussion_threads_visible_{name}",
            "discussion_threads",
            columns,
            sqlite_where=sa.text(where),
            postgresql_where=sa.text(where),
        )


def upgrade() -> None:
    _rebuild("hidden_at IS NULL AND (deleted_at IS NULL OR reply_count > 0)")
    op.create_index(
        "ix_moderation_reports_problem_status", "moderation_reports", ["problem_id", "status", "id"]
    )
    open_only = sa.text("status = 'open'")
    op.create_index(
        "ix_moderation_reports_open",
        "moderation_reports",
        ["id"],
        sqlite_where=open_only,
        postgresql_where=open_only,
    )


def downgrade() -> None:
    op.drop_index("ix_moderation_reports_open", table_name="moderation_reports")
    op.drop_index("ix_moderation_reports_problem_status", table_name="moderation_reports")
    _rebuild("hidden_at IS NULL AND deleted_at IS NULL")
