"""Maintained progress: learner_problems (attempted/solved per learner and problem) and problem_stats.

Listings read these instead of aggregating the submissions table, so their cost does not grow
with history. The upgrade fills them from the existing submissions (the same rules as
``app.progress.rules`` and ``torchdrill stats rebuild``).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Practice submissions: not the re-judged copies of course regrades (idempotency key "regrade-…").
PRACTICE = "(idempotency_key IS NULL OR idempotency_key NOT LIKE 'regrade-%')"
SOLVED = "(mode = 'submit' AND verdict = 'accepted')"


def upgrade() -> None:
    op.create_table(
        "learner_problems",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("submissions", sa.Integer(), nullable=False),
        sa.Column("solved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_learner_problems_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_learner_problems_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "problem_id", name=op.f("pk_learner_problems")),
    )
    op.create_index(op.f("ix_learner_problems_problem_id"), "learner_problems", ["problem_id"])
    op.create_index("ix_learner_problems_user_solved", "learner_problems", ["user_id", "solved_at"])
    op.create_table(
        "problem_stats",
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("judged", sa.Integer(), nullable=False),
        sa.Column("accepted", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name=op.f("fk_problem_stats_problem_id_problems"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("problem_id", name=op.f("pk_problem_stats")),
    )
    # Keyset pagination of a learner's submissions (newest first, optionally per problem).
    op.create_index("ix_submissions_user_id_desc", "submissions", ["user_id", "id"])
    op.create_index("ix_submissions_user_problem_id", "submissions", ["user_id", "problem_id", "id"])
    op.execute(
        "INSERT INTO learner_problems (user_id, problem_id, submissions, solved_at, last_submitted_at) "
        f"SELECT user_id, problem_id, COUNT(*), MIN(CASE WHEN {SOLVED} THEN created_at END), MAX(created_at) "
        f"FROM submissions WHERE {PRACTICE} GROUP BY user_id, problem_id"
    )
    op.execute(
        "INSERT INTO problem_stats (problem_id, judged, accepted) "
        f"SELECT problem_id, COUNT(*), SUM(CASE WHEN {SOLVED} THEN 1 ELSE 0 END) "
        f"FROM submissions WHERE {PRACTICE} AND mode = 'submit' AND verdict IS NOT NULL GROUP BY problem_id"
    )


def downgrade() -> None:
    op.drop_index("ix_submissions_user_problem_id", table_name="submissions")
    op.drop_index("ix_submissions_user_id_desc", table_name="submissions")
    op.drop_table("problem_stats")
    op.drop_index("ix_learner_problems_user_solved", table_name="learner_problems")
    op.drop_index(op.f("ix_learner_problems_problem_id"), table_name="learner_problems")
    op.drop_table("learner_problems")
