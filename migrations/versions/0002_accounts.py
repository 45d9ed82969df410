"""Accounts: premium entitlements and codes, API tokens, failed log-ins; submission idempotency keys.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "premium_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("max_uses", sa.Integer(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("max_uses >= 1", name=op.f("ck_premium_codes_max_uses")),
        sa.CheckConstraint("uses >= 0 AND uses <= max_uses", name=op.f("ck_premium_codes_uses")),
        sa.CheckConstraint("days >= 1", name=op.f("ck_premium_codes_days")),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["users.id"],
            name=op.f("fk_premium_codes_created_by_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_premium_codes")),
        sa.UniqueConstraint("code", name=op.f("uq_premium_codes_code")),
    )
    op.create_index(op.f("ix_premium_codes_created_by_id"), "premium_codes", ["created_by_id"])
    op.create_table(
        "premium_grants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("source", sa.String(length=10), nullable=False),
        sa.Column("code_id", sa.Integer(), nullable=True),
        sa.Column("granted_by_id", sa.Integer(), nullable=True),
        sa.Column("revoked_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("source IN ('admin', 'code')", name=op.f("ck_premium_grants_source")),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_premium_grants_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["code_id"],
            ["premium_codes.id"],
            name=op.f("fk_premium_grants_code_id_premium_codes"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["granted_by_id"],
            ["users.id"],
            name=op.f("fk_premium_grants_granted_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_premium_grants")),
        sa.UniqueConstraint("code_id", "user_id", name="uq_premium_grants_code_user"),
    )
    op.create_index("ix_premium_grants_user_expires", "premium_grants", ["user_id", "expires_at"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("last_used_at", TS, nullable=True),
        sa.Column("revoked_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_api_tokens_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_index(op.f("ix_api_tokens_user_id"), "api_tokens", ["user_id"])
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("client", sa.String(length=100), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_failures")),
    )
    op.create_index("ix_login_failures_email_at", "login_failures", ["email", "at"])
    op.create_index("ix_login_failures_client_at", "login_failures", ["client", "at"])
    with op.batch_alter_table("submissions") as batch_op:
        batch_op.add_column(sa.Column("idempotency_key", sa.String(length=100), nullable=True))
        batch_op.create_unique_constraint(
            "uq_submissions_user_idempotency_key", ["user_id", "idempotency_key"]
        )


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch_op:
        batch_op.drop_constraint("uq_submissions_user_idempotency_key", type_="unique")
        batch_op.drop_column("idempotency_key")
    op.drop_table("login_failures")
    op.drop_table("api_tokens")
    op.drop_table("premium_grants")
    op.drop_table("premium_codes")
