"""Limits per real client: sign-up attempts per client; failed log-ins name the known browser they
came from (accounts/browsers.py).

Revision ID: 0020
Revises: 0015 (the coordinator chains it)
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | Sequence[str] | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "client_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("client", sa.String(length=100), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_client_attempts")),
    )
    op.create_index("ix_client_attempts_action_client_at", "client_attempts", ["action", "client", "at"])
    op.add_column("login_failures", sa.Column("browser", sa.String(length=32), nullable=True))


def downgrade() -> None:
    op.drop_column("login_failures", "browser")
    op.drop_table("client_attempts")
