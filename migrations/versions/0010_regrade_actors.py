"""Regrade runs keep who started and applied them as plain user ids (no foreign keys).

Deleting a course owner who started a regrade deleted the run twice over on PostgreSQL: the
``SET NULL`` on ``started_by_id`` re-checked the row while the owner's course cascade had
already removed its assignment, and the whole ``DELETE`` failed. The columns are a log of who
acted, so they stay plain ids.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTORS = ("started_by_id", "applied_by_id")


def upgrade() -> None:
    with op.batch_alter_table("course_regrades", recreate="always") as batch:
        for column in ACTORS:
            batch.drop_constraint(op.f(f"fk_course_regrades_{column}_users"), type_="foreignkey")


def downgrade() -> None:
    with op.batch_alter_table("course_regrades", recreate="always") as batch:
        for column in ACTORS:
            batch.create_foreign_key(
                op.f(f"fk_course_regrades_{column}_users"), "users", [column], ["id"], ondelete="SET NULL"
            )
