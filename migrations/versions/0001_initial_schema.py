"""Initial schema: users, problems with versions and tags, submissions.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=20), server_default="student", nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("role IN ('student', 'instructor', 'admin')", name=op.f("ck_users_role")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("email", name=op.f("uq_users_email")),
    )
    op.create_table(
        "problems",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=80), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("difficulty", sa.String(length=10), nullable=False),
        sa.Column("category", sa.String(length=100), nullable=False),
        sa.Column("premium", sa.Boolean(), nullable=False),
        sa.Column("published", sa.Boolean(), nullable=False),
        sa.Column("current_version_id", sa.Integer(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.CheckConstraint("difficulty IN ('easy', 'medium', 'hard')", name=op.f("ck_problems_difficulty")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_problems")),
        sa.UniqueConstraint("slug", name=op.f("uq_problems_slug")),
    )
    op.create_index(op.f("ix_problems_category"), "problems", ["category"])
    op.create_table(
        "problem_tags",
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("tag", sa.String(length=60), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_problem_tags_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("problem_id", "tag", name=op.f("pk_problem_tags")),
    )
    op.create_index(op.f("ix_problem_tags_tag"), "problem_tags", ["tag"])
    op.create_table(
        "problem_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("files", sa.JSON(), nullable=False),
        sa.Column("expectations", sa.JSON(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_problem_versions_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_problem_versions")),
        sa.UniqueConstraint("problem_id", "number", name=op.f("uq_problem_versions_problem_id")),
    )
    op.create_index(op.f("ix_problem_versions_problem_id"), "problem_versions", ["problem_id"])
    # problems <-> problem_versions is a cycle: the "current version" key is added afterwards.
    with op.batch_alter_table("problems") as batch_op:
        batch_op.create_foreign_key(
            op.f("fk_problems_current_version_id_problem_versions"),
            "problem_versions",
            ["current_version_id"],
            ["id"],
            ondelete="SET NULL",
        )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("problem_version_id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=10), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("verdict", sa.String(length=40), nullable=True),
        sa.Column("passed", sa.Integer(), nullable=True),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("cases", sa.JSON(), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("time_ms", sa.Float(), nullable=True),
        sa.Column("runtime", sa.JSON(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.CheckConstraint("mode IN ('run', 'submit')", name=op.f("ck_submissions_mode")),
        sa.CheckConstraint("status IN ('queued', 'running', 'finished')", name=op.f("ck_submissions_status")),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_submissions_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["problem_version_id"],
            ["problem_versions.id"],
            name=op.f("fk_submissions_problem_version_id_problem_versions"),
            ondelete="RESTRICT",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_submissions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
    )
    op.create_index("ix_submissions_status", "submissions", ["status"])
    op.create_index(
        "ix_submissions_user_problem_created", "submissions", ["user_id", "problem_id", "created_at"]
    )


def downgrade() -> None:
    op.drop_table("submissions")
    with op.batch_alter_table("problems") as batch_op:
        batch_op.drop_constraint(op.f("fk_problems_current_version_id_problem_versions"), type_="foreignkey")
    op.drop_table("problem_versions")
    op.drop_table("problem_tags")
    op.drop_table("problems")
    op.drop_table("users")
