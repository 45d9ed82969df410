"""Indexes for keyset-paginated lists: live API tokens, a course's assignments, authoring's problems.

``GET /api/v1/auth/tokens`` pages a user's live tokens by (created_at, id) descending: a partial
index over ``revoked_at IS NULL`` (SQLite and PostgreSQL both have partial indexes) serves it in
order. A course's assignments page by (due_at, id): ``ix_assignments_course_due`` replaces
``ix_assignments_course_id``, whose one column is its prefix (the foreign key still has an index).
The authoring list pages every problem by (published, category, title, id).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE = sa.text("revoked_at IS NULL")


def upgrade() -> None:
    op.create_index(
        "ix_api_tokens_live",
        "api_tokens",
        ["user_id", "created_at", "id"],
        sqlite_where=LIVE,
        postgresql_where=LIVE,
    )
    op.create_index("ix_assignments_course_due", "assignments", ["course_id", "due_at", "id"])
    op.drop_index("ix_assignments_course_id", table_name="assignments")
    op.create_index("ix_problems_authoring", "problems", ["published", "category", "title", "id"])


def downgrade() -> None:
    op.drop_index("ix_problems_authoring", table_name="problems")
    op.create_index("ix_assignments_course_id", "assignments", ["course_id"])
    op.drop_index("ix_assignments_course_due", table_name="assignments")
    op.drop_index("ix_api_tokens_live", table_name="api_tokens")
