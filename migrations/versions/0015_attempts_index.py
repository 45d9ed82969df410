"""An index for the course drill-down's pages: a student's attempts newest first.

``GET /api/v1/courses/{id}/students/{user_id}`` (and its page) lists a student's submissions on
the course's problems by (created_at, id) descending, a page at a time. ``ix_submissions_user_created``
(user_id, created_at, id) serves it in order from the cursor on, on SQLite and PostgreSQL; the
problems are checked on the rows it reads. The existing (user_id, problem_id, created_at) index
cannot: its order is per problem.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_submissions_user_created", "submissions", ["user_id", "created_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_submissions_user_created", table_name="submissions")
