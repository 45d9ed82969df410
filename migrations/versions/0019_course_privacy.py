"""Course privacy: enrolment periods, a student's own leaving, declined invitations.

* ``course_enrolment_periods``: when each student was an active member (from accepting to leaving,
  removal or blocking). Instructors see only work done inside a period
  (:mod:`app.courses.visibility`). Existing student memberships get one period from the
  membership's ``created_at`` (the moment they were enrolled): open for active students, closed
  now for removed or blocked ones (when they were removed was not recorded).
* ``course_members.status`` may be ``left`` (the student left the course themselves).
* ``course_invitations.declined_at``: the invitee declined; a later roster import skips them.
* ``courses.invitation_only``: the join code enrols nobody; only invited students may join.

Revision ID: 0019
Revises: 0015
Create Date: 2026-12-05
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "course_enrolment_periods",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["course_id"],
            ["courses.id"],
            name=op.f("fk_course_enrolment_periods_course_id_courses"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_course_enrolment_periods_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_course_enrolment_periods")),
    )
    op.create_index(
        "ix_course_enrolment_periods_course_user", "course_enrolment_periods", ["course_id", "user_id"]
    )
    op.create_index(op.f("ix_course_enrolment_periods_user_id"), "course_enrolment_periods", ["user_id"])
    # A batch copy of course_members is safe: no table refers to it.
    with op.batch_alter_table("course_members", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_course_members_status"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_course_members_status"), "status IN ('active', 'removed', 'blocked', 'left')"
        )
    # Plain ALTER TABLE ADD COLUMN, never a batch copy: on SQLite (foreign keys on) recreating
    # ``courses`` would drop it, and the drop would cascade to every member, assignment and invitation.
    op.add_column("course_invitations", sa.Column("declined_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "courses", sa.Column("invitation_only", sa.Boolean(), nullable=False, server_default=sa.false())
    )

    members = sa.table(
        "course_members",
        sa.column("course_id", sa.Integer),
        sa.column("user_id", sa.Integer),
        sa.column("role", sa.String),
        sa.column("status", sa.String),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    periods = sa.table(
        "course_enrolment_periods",
        sa.column("course_id", sa.Integer),
        sa.column("user_id", sa.Integer),
        sa.column("joined_at", sa.DateTime(timezone=True)),
        sa.column("left_at", sa.DateTime(timezone=True)),
    )
    bind = op.get_bind()
    now = datetime.now(UTC)
    rows = bind.execute(
        sa.select(members.c.course_id, members.c.user_id, members.c.status, members.c.created_at).where(
            members.c.role == "student"
        )
    ).all()
    if rows:
        op.bulk_insert(
            periods,
            [
                {
                    "course_id": course_id,
                    "user_id": user_id,
                    "joined_at": created_at,
                    "left_at": None if status == "active" else now,
                }
                for course_id, user_id, status, created_at in rows
            ],
        )


def downgrade() -> None:
    op.execute("UPDATE course_members SET status = 'removed' WHERE status = 'left'")
    op.drop_column("courses", "invitation_only")  # plain ALTER TABLE DROP COLUMN (see upgrade)
    op.drop_column("course_invitations", "declined_at")
    with op.batch_alter_table("course_members", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_course_members_status"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_course_members_status"), "status IN ('active', 'removed', 'blocked')"
        )
    op.drop_index(op.f("ix_course_enrolment_periods_user_id"), table_name="course_enrolment_periods")
    op.drop_index("ix_course_enrolment_periods_course_user", table_name="course_enrolment_periods")
    op.drop_table("course_enrolment_periods")
