"""LTI line items the background sender makes: a line item whose creation failed during a launch
is stored with an empty ``url`` and retried by the passback sweep (``app.lti.line_items``), which
claims it with ``retry_at`` (also its back-off) and records its ``attempts`` and ``last_error``.
A platform may name the address its pages are shown on (``lms_url``), which may frame the tool.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | Sequence[str] | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lti_line_items") as batch:
        batch.add_column(sa.Column("retry_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("last_error", sa.String(1000), nullable=False, server_default=""))
    with op.batch_alter_table("lti_platforms") as batch:
        batch.add_column(sa.Column("lms_url", sa.String(1000), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("lti_platforms") as batch:
        batch.drop_column("lms_url")
    with op.batch_alter_table("lti_line_items") as batch:
        batch.drop_column("last_error")
        batch.drop_column("attempts")
        batch.drop_column("retry_at")
