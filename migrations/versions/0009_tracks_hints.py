"""Learning paths and hints: ``tracks``, each problem's track and place in it, ``hint_reveals``.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tracks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=60), nullable=False),
        sa.Column("title", sa.String(length=100), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tracks")),
        sa.UniqueConstraint("slug", name=op.f("uq_tracks_slug")),
        sa.UniqueConstraint("title", name=op.f("uq_tracks_title")),
    )
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.add_column(sa.Column("track_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("position", sa.Integer(), nullable=False, server_default="0"))
        batch_op.create_index(batch_op.f("ix_problems_track_id"), ["track_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_problems_track_id_tracks"), "tracks", ["track_id"], ["id"], ondelete="SET NULL"
        )
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.alter_column("position", server_default=None)
    op.create_table(
        "hint_reveals",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("revealed", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("revealed >= 0", name=op.f("ck_hint_reveals_revealed")),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_hint_reveals_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_hint_reveals_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "problem_id", name=op.f("pk_hint_reveals")),
    )


def downgrade() -> None:
    op.drop_table("hint_reveals")
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_problems_track_id_tracks"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_problems_track_id"))
        batch_op.drop_column("position")
        batch_op.drop_column("track_id")
    op.drop_table("tracks")
