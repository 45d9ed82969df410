"""``analytics_assignments.inputs_key`` goes: it was written on every refresh (two reads of the
course's extensions and enrolment periods to make it) and never read; what an assignment's rows
were last checked against is its ``problems_key`` (``app.analytics.state.refresh``). Downgrading
brings the column back empty, as 0026 made it.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | Sequence[str] | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("analytics_assignments") as batch:
        batch.drop_column("inputs_key")


def downgrade() -> None:
    with op.batch_alter_table("analytics_assignments") as batch:
        batch.add_column(sa.Column("inputs_key", sa.String(length=64), nullable=False, server_default=""))
    with op.batch_alter_table("analytics_assignments") as batch:  # no server default, as 0026 made it
        batch.alter_column("inputs_key", server_default=None)
