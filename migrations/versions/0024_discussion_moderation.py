"""Discussion threads, replies, revisions and votes; moderation reports.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | Sequence[str] | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def _user_fk(table: str, column: str = "author_id") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["users.id"], name=op.f(f"fk_{table}_{column}_users"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "discussion_threads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("reply_count", sa.Integer(), nullable=False),
        sa.Column("answer_id", sa.Integer(), nullable=True),
        sa.Column("pinned_id", sa.Integer(), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("edited_at", _TIME, nullable=True),
        sa.Column("hidden_at", _TIME, nullable=True),
        sa.Column("deleted_at", _TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["problem_id"], ["problems.id"],
            name=op.f("fk_discussion_threads_problem_id_problems"), ondelete="CASCADE",
        ),
        _user_fk("discussion_threads"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_discussion_threads")),
    )  # fmt: skip
    # Visible threads only: the listings and the count read these indexes alone.
    visible = sa.text("hidden_at IS NULL AND deleted_at IS NULL")
    for name, columns in (("new", ["problem_id", "id"]), ("votes", ["problem_id", "votes", "id"])):
        op.create_index(
            f"ix_discussion_threads_visible_{name}",
            "discussion_threads",
            columns,
            sqlite_where=visible,
            postgresql_where=visible,
        )
    op.create_index(op.f("ix_discussion_threads_author_id"), "discussion_threads", ["author_id"])
    op.create_table(
        "discussion_replies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("thread_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("edited_at", _TIME, nullable=True),
        sa.Column("hidden_at", _TIME, nullable=True),
        sa.Column("deleted_at", _TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["discussion_threads.id"],
            name=op.f("fk_discussion_replies_thread_id_discussion_threads"), ondelete="CASCADE",
        ),
        _user_fk("discussion_replies"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_discussion_replies")),
    )  # fmt: skip
    op.create_index("ix_discussion_replies_thread_id", "discussion_replies", ["thread_id", "id"])
    op.create_index(op.f("ix_discussion_replies_author_id"), "discussion_replies", ["author_id"])
    op.create_table(
        "discussion_revisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("written_at", _TIME, nullable=False),
        sa.CheckConstraint("kind IN ('thread', 'reply')", name=op.f("ck_discussion_revisions_kind")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_discussion_revisions")),
    )
    op.create_index("ix_discussion_revisions_post", "discussion_revisions", ["kind", "post_id", "id"])
    op.create_table(
        "discussion_votes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.CheckConstraint("kind IN ('thread', 'reply')", name=op.f("ck_discussion_votes_kind")),
        _user_fk("discussion_votes", "user_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_discussion_votes")),
        sa.UniqueConstraint("kind", "post_id", "user_id", name=op.f("uq_discussion_votes_one")),
    )
    op.create_index(op.f("ix_discussion_votes_user_id"), "discussion_votes", ["user_id"])
    op.create_table(
        "moderation_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("resolved_by_id", sa.Integer(), nullable=True),
        sa.Column("resolved_at", _TIME, nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.CheckConstraint(
            "status IN ('open', 'hidden', 'dismissed')", name=op.f("ck_moderation_reports_status")
        ),
        sa.ForeignKeyConstraint(
            ["problem_id"], ["problems.id"],
            name=op.f("fk_moderation_reports_problem_id_problems"), ondelete="CASCADE",
        ),
        _user_fk("moderation_reports", "reporter_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_reports")),
        sa.UniqueConstraint("kind", "target_id", "reporter_id", name=op.f("uq_moderation_reports_once")),
    )  # fmt: skip
    op.create_index("ix_moderation_reports_status", "moderation_reports", ["status", "id"])
    op.create_index("ix_moderation_reports_target", "moderation_reports", ["kind", "target_id"])
    op.create_index(op.f("ix_moderation_reports_problem_id"), "moderation_reports", ["problem_id"])
    op.create_index(op.f("ix_moderation_reports_reporter_id"), "moderation_reports", ["reporter_id"])


def downgrade() -> None:
    op.drop_table("moderation_reports")
    op.drop_table("discussion_votes")
    op.drop_table("discussion_revisions")
    op.drop_table("discussion_replies")
    op.drop_table("discussion_threads")
