"""Courses: courses, members, invitations, assignments (+ problems, extensions), regrade runs.

Revision ID: 0007
Revises: 0004
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "courses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("term", sa.String(length=100), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("join_code", sa.String(length=20), nullable=False),
        sa.Column("join_code_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lti_context_id", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_courses_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_courses")),
        sa.UniqueConstraint("join_code", name=op.f("uq_courses_join_code")),
    )
    with op.batch_alter_table("courses", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_courses_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("release_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("late", sa.JSON(), nullable=False),
        sa.Column("after_last", sa.String(length=10), nullable=False),
        sa.Column("lti_line_item_id", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("after_last IN ('zero', 'closed')", name=op.f("ck_assignments_after_last")),
        sa.ForeignKeyConstraint(
            ["course_id"], ["courses.id"], name=op.f("fk_assignments_course_id_courses"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assignments")),
    )
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_assignments_course_id"), ["course_id"], unique=False)

    op.create_table(
        "course_invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("section", sa.String(length=100), nullable=False),
        sa.Column("code", sa.String(length=20), nullable=False),
        sa.Column("accepted_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["accepted_by_id"],
            ["users.id"],
            name=op.f("fk_course_invitations_accepted_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["course_id"],
            ["courses.id"],
            name=op.f("fk_course_invitations_course_id_courses"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_course_invitations")),
        sa.UniqueConstraint("code", name=op.f("uq_course_invitations_code")),
        sa.UniqueConstraint("course_id", "email", name="uq_course_invitations_course_email"),
    )
    op.create_table(
        "course_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("section", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('instructor', 'student')", name=op.f("ck_course_members_role")),
        sa.CheckConstraint(
            "status IN ('active', 'removed', 'blocked')", name=op.f("ck_course_members_status")
        ),
        sa.ForeignKeyConstraint(
            ["course_id"],
            ["courses.id"],
            name=op.f("fk_course_members_course_id_courses"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_course_members_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_course_members")),
        sa.UniqueConstraint("course_id", "user_id", name="uq_course_members_course_user"),
    )
    with op.batch_alter_table("course_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_course_members_user_id"), ["user_id"], unique=False)

    op.create_table(
        "assignment_extensions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("release_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("late", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_assignment_extensions_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_assignment_extensions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assignment_extensions")),
        sa.UniqueConstraint("assignment_id", "user_id", name="uq_assignment_extensions_pair"),
    )
    with op.batch_alter_table("assignment_extensions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_assignment_extensions_user_id"), ["user_id"], unique=False)

    op.create_table(
        "assignment_problems",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_assignment_problems_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_assignment_problems_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assignment_id", "problem_id", name=op.f("pk_assignment_problems")),
    )
    with op.batch_alter_table("assignment_problems", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_assignment_problems_problem_id"), ["problem_id"], unique=False)

    op.create_table(
        "course_regrades",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("started_by_id", sa.Integer(), nullable=True),
        sa.Column("applied_by_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("never_lower", sa.Boolean(), nullable=False),
        sa.Column("copies", sa.JSON(), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=True),
        sa.Column("floors", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('judging', 'ready', 'applied')", name=op.f("ck_course_regrades_status")
        ),
        sa.ForeignKeyConstraint(
            ["applied_by_id"],
            ["users.id"],
            name=op.f("fk_course_regrades_applied_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_course_regrades_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_course_regrades_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["started_by_id"],
            ["users.id"],
            name=op.f("fk_course_regrades_started_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["problem_versions.id"],
            name=op.f("fk_course_regrades_version_id_problem_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_course_regrades")),
        sa.UniqueConstraint("assignment_id", "problem_id", "version_id", name="uq_course_regrades_target"),
    )


def downgrade() -> None:
    op.drop_table("course_regrades")
    with op.batch_alter_table("assignment_problems", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_assignment_problems_problem_id"))

    op.drop_table("assignment_problems")
    with op.batch_alter_table("assignment_extensions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_assignment_extensions_user_id"))

    op.drop_table("assignment_extensions")
    with op.batch_alter_table("course_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_course_members_user_id"))

    op.drop_table("course_members")
    op.drop_table("course_invitations")
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_assignments_course_id"))

    op.drop_table("assignments")
    with op.batch_alter_table("courses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_courses_owner_id"))

    op.drop_table("courses")
