"""Password reset by email: single-use hashed tokens, and a session epoch that ends old sessions.

Revision ID: 0013
Revises: 0012 (the coordinator chains it)
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "password_resets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("client", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_password_resets_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_password_resets")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_password_resets_token_hash")),
    )
    op.create_index("ix_password_resets_email_created", "password_resets", ["email", "created_at"])
    op.create_index("ix_password_resets_client_created", "password_resets", ["client", "created_at"])
    op.create_index(op.f("ix_password_resets_user_id"), "password_resets", ["user_id"])
    op.add_column("users", sa.Column("session_epoch", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite >= 3.35 too): a batch copy of ``users`` would cascade-delete every
    # row that references a user (submissions, drafts, ...) on SQLite with foreign keys on.
    op.drop_column("users", "session_epoch")
    op.drop_table("password_resets")
