"""Published solutions: write-ups, approach tags, votes, comments, give-ups, assignment holds and
hidden editorials.

Revision ID: 0023
Revises: 0022 (the coordinator chains it)
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | Sequence[str] | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "solutions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("write_up", sa.Text(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("comments", sa.Integer(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("hidden_at", TIME, nullable=True),
        sa.Column("deleted_at", TIME, nullable=True),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.id"],
                                name=op.f("fk_solutions_problem_id_problems"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["author_id"], ["users.id"],
                                name=op.f("fk_solutions_author_id_users"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"],
                                name=op.f("fk_solutions_submission_id_submissions"), ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_solutions")),
        sa.UniqueConstraint("submission_id", name="uq_solutions_submission_id"),
    )  # fmt: skip
    op.create_index("ix_solutions_problem_votes", "solutions", ["problem_id", "votes", "id"])
    op.create_index("ix_solutions_problem_id", "solutions", ["problem_id", "id"])
    op.create_index("ix_solutions_author_id", "solutions", ["author_id", "id"])

    op.create_table(
        "solution_tags",
        sa.Column("solution_id", sa.Integer(), nullable=False),
        sa.Column("tag", sa.String(length=40), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("shown", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["solution_id"], ["solutions.id"],
                                name=op.f("fk_solution_tags_solution_id_solutions"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.id"],
                                name=op.f("fk_solution_tags_problem_id_problems"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("solution_id", "tag", name=op.f("pk_solution_tags")),
    )  # fmt: skip
    op.create_index("ix_solution_tags_problem_tag", "solution_tags", ["problem_id", "tag", "solution_id"])
    op.create_index("ix_solution_tags_problem_shown", "solution_tags", ["problem_id", "shown", "tag"])

    op.create_table(
        "solution_votes",
        sa.Column("solution_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(["solution_id"], ["solutions.id"],
                                name=op.f("fk_solution_votes_solution_id_solutions"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name=op.f("fk_solution_votes_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("solution_id", "user_id", name=op.f("pk_solution_votes")),
    )  # fmt: skip

    op.create_table(
        "solution_comments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("solution_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("hidden_at", TIME, nullable=True),
        sa.Column("deleted_at", TIME, nullable=True),
        sa.ForeignKeyConstraint(["solution_id"], ["solutions.id"],
                                name=op.f("fk_solution_comments_solution_id_solutions"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["author_id"], ["users.id"],
                                name=op.f("fk_solution_comments_author_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_solution_comments")),
    )  # fmt: skip
    op.create_index("ix_solution_comments_solution_id", "solution_comments", ["solution_id", "id"])
    op.create_index("ix_solution_comments_author_id", "solution_comments", ["author_id"])

    op.create_table(
        "solution_give_ups",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name=op.f("fk_solution_give_ups_user_id_users"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.id"],
                                name=op.f("fk_solution_give_ups_problem_id_problems"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "problem_id", name=op.f("pk_solution_give_ups")),
    )  # fmt: skip
    op.create_index("ix_solution_give_ups_problem_id", "solution_give_ups", ["problem_id"])

    op.create_table(
        "solution_holds",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("set_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignments.id"],
                                name=op.f("fk_solution_holds_assignment_id_assignments"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("assignment_id", name=op.f("pk_solution_holds")),
    )  # fmt: skip

    op.create_table(
        "hidden_editorials",
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("hidden_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.id"],
                                name=op.f("fk_hidden_editorials_problem_id_problems"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("problem_id", name=op.f("pk_hidden_editorials")),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("hidden_editorials")
    op.drop_table("solution_holds")
    op.drop_index("ix_solution_give_ups_problem_id", table_name="solution_give_ups")
    op.drop_table("solution_give_ups")
    op.drop_index("ix_solution_comments_author_id", table_name="solution_comments")
    op.drop_index("ix_solution_comments_solution_id", table_name="solution_comments")
    op.drop_table("solution_comments")
    op.drop_table("solution_votes")
    op.drop_index("ix_solution_tags_problem_shown", table_name="solution_tags")
    op.drop_index("ix_solution_tags_problem_tag", table_name="solution_tags")
    op.drop_table("solution_tags")
    op.drop_index("ix_solutions_author_id", table_name="solutions")
    op.drop_index("ix_solutions_problem_id", table_name="solutions")
    op.drop_index("ix_solutions_problem_votes", table_name="solutions")
    op.drop_table("solutions")
