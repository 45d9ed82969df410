"""Sessions that end and tokens with a life (issue #37).

* ``user_sessions``: one row per signed-in browser (the cookie carries a random id, the row its
  SHA-256), so logging out, a password change or reset and "sign out everywhere" end a session on
  the server (``users.session_epoch`` stays: a password change or reset bumps it, which voids a
  two-factor sign-in pending since before).
* ``api_tokens.scopes`` (a space-separated subset of ``read submit teach``) and ``expires_at``.
  Existing tokens keep what they could do: ``read submit``, plus ``teach`` for instructors and
  admins; they do not expire (their owners can revoke them on the account page).

Revision ID: 0016
Revises: 0017 (two-factor sign-in, merged first; 0016 was written beside it on 0015)
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)
LIVE = sa.text("revoked_at IS NULL")


def upgrade() -> None:
    op.create_table(
        "user_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("last_seen_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("revoked_at", TS, nullable=True),
        sa.Column("user_agent", sa.String(length=200), nullable=False),
        sa.Column("client", sa.String(length=100), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_user_sessions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_sessions")),
        sa.UniqueConstraint("id_hash", name=op.f("uq_user_sessions_id_hash")),
    )
    op.create_index(
        "ix_user_sessions_live",
        "user_sessions",
        ["user_id", "created_at"],
        sqlite_where=LIVE,
        postgresql_where=LIVE,
    )
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(
            sa.Column("scopes", sa.String(length=40), nullable=False, server_default="read submit")
        )
        batch.add_column(sa.Column("expires_at", TS, nullable=True))
    op.execute(
        "UPDATE api_tokens SET scopes = 'read submit teach' "
        "WHERE user_id IN (SELECT id FROM users WHERE role IN ('instructor', 'admin'))"
    )


def downgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("expires_at")
        batch.drop_column("scopes")
    op.drop_index("ix_user_sessions_live", table_name="user_sessions")
    op.drop_table("user_sessions")
