"""Ownership in authoring: a problem's owners, and problems that belong to one course.

``problem_owners`` lists who may edit a problem: its author (who created it) and the co-authors
the author adds. A problem without owners (the shipped bank, and every problem that existed before
this revision) is edited by admins only; an admin can add its former authors as co-authors.

``problems.course_only`` keeps a problem inside ``problems.course_id``'s course: it is never listed,
found, tracked or opened outside it until an admin publishes it site-wide (``course_only`` false).
When its course is deleted, ``course_id`` becomes NULL but the problem stays course-only: it is
then visible to its owners and admins only (it never falls open to everyone).

Revision ID: 0018
Revises: 0015
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "problem_owners",
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("added_by_id", sa.Integer(), nullable=True),  # a log: a plain id (see 0010)
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('author', 'coauthor')", name=op.f("ck_problem_owners_role")),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_problem_owners_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_problem_owners_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("problem_id", "user_id", name=op.f("pk_problem_owners")),
    )
    op.create_index(op.f("ix_problem_owners_user_id"), "problem_owners", ["user_id"], unique=False)
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.add_column(sa.Column("course_only", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("course_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_problems_course_id"), ["course_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_problems_course_id_courses"), "courses", ["course_id"], ["id"], ondelete="SET NULL"
        )
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.alter_column("course_only", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_problems_course_id_courses"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_problems_course_id"))
        batch_op.drop_column("course_id")
        batch_op.drop_column("course_only")
    op.drop_index(op.f("ix_problem_owners_user_id"), table_name="problem_owners")
    op.drop_table("problem_owners")
