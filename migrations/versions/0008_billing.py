"""Billing: processed provider events (``billing_events``) and the 'billing' grant source.

Revision ID: 0008
Revises: 0004
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_SOURCES = "source IN ('admin', 'code')"
NEW_SOURCES = "source IN ('admin', 'code', 'billing')"


def _sources(check: str) -> None:
    with op.batch_alter_table("premium_grants", recreate="always") as batch:
        batch.drop_constraint(op.f("ck_premium_grants_source"), type_="check")
        batch.create_check_constraint(op.f("ck_premium_grants_source"), sa.text(check))


def upgrade() -> None:
    _sources(NEW_SOURCES)
    op.create_table(
        "billing_events",
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("provider", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=100), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("grant_id", sa.Integer(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_billing_events_user_id_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["grant_id"],
            ["premium_grants.id"],
            name=op.f("fk_billing_events_grant_id_premium_grants"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_billing_events")),
    )


def downgrade() -> None:
    op.drop_table("billing_events")
    op.execute("DELETE FROM premium_grants WHERE source = 'billing'")
    _sources(OLD_SOURCES)
