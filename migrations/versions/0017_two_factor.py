"""Two-factor sign-in: the sealed TOTP secret on users, recovery codes, throttled attempts.

Revision ID: 0017
Revises: 0015 (the coordinator chains it)
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("users", sa.Column("totp_secret", sa.String(length=200), nullable=True))
    op.add_column("users", sa.Column("totp_enabled_at", TS, nullable=True))
    op.add_column("users", sa.Column("totp_last_step", sa.BigInteger(), nullable=True))
    op.create_table(
        "recovery_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_recovery_codes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recovery_codes")),
        sa.UniqueConstraint("user_id", "code_hash", name="uq_recovery_codes_user_hash"),
    )
    op.create_table(
        "two_factor_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_two_factor_attempts_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_two_factor_attempts")),
    )
    op.create_index("ix_two_factor_attempts_user_at", "two_factor_attempts", ["user_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_two_factor_attempts_user_at", table_name="two_factor_attempts")
    op.drop_table("two_factor_attempts")
    op.drop_table("recovery_codes")
    # Plain DROP COLUMN (SQLite >= 3.35 too): a batch copy of ``users`` would cascade-delete rows.
    op.drop_column("users", "totp_last_step")
    op.drop_column("users", "totp_enabled_at")
    op.drop_column("users", "totp_secret")
