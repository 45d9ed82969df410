"""Custom runs ("Run with my input"): a ``custom`` submission mode and the learner's arguments.

Custom runs are stored like runs so the one submission view, the history and the rate limits
apply; ``custom_input`` holds the arguments as data (``runner.format.inputs`` format).

Revision ID: 0012
Revises: 0011 (the head of this branch; the coordinator chains it)
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch_op:
        batch_op.add_column(sa.Column("custom_input", sa.JSON(), nullable=True))
        batch_op.drop_constraint(op.f("ck_submissions_mode"), type_="check")
        batch_op.create_check_constraint(op.f("ck_submissions_mode"), "mode IN ('run', 'submit', 'custom')")


def downgrade() -> None:
    op.execute("DELETE FROM submissions WHERE mode = 'custom'")
    with op.batch_alter_table("submissions") as batch_op:
        batch_op.drop_constraint(op.f("ck_submissions_mode"), type_="check")
        batch_op.create_check_constraint(op.f("ck_submissions_mode"), "mode IN ('run', 'submit')")
        batch_op.drop_column("custom_input")
