"""LTI 1.3: platforms, deployments, the tool's keys, logins and nonces, context/user/resource links,
line items and the grade passback queue.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | Sequence[str] | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TZ = sa.DateTime(timezone=True)


def _fk(table: str, column: str, target: str, ondelete: str = "CASCADE") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_url", sa.String(1000), nullable=False),
        sa.Column("token_url", sa.String(1000), nullable=False),
        sa.Column("jwks_url", sa.String(1000), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_platforms")),
        sa.UniqueConstraint("issuer", "client_id", name=op.f("uq_lti_platforms_issuer_client")),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        _fk("lti_deployments", "platform_id", "lti_platforms"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_deployments")),
        sa.UniqueConstraint(
            "platform_id", "deployment_id", name=op.f("uq_lti_deployments_platform_deployment")
        ),
    )
    op.create_table(
        "lti_tool_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kid", sa.String(100), nullable=False),
        sa.Column("private_jwk", sa.Text(), nullable=False),
        sa.Column("public_jwk", sa.JSON(), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("retired_at", TZ, nullable=True),
        sa.Column("published_until", TZ, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_tool_keys")),
        sa.UniqueConstraint("kid", name=op.f("uq_lti_tool_keys_kid")),
    )
    op.create_table(
        "lti_logins",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(100), nullable=False),
        sa.Column("nonce", sa.String(100), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        sa.Column("used_at", TZ, nullable=True),
        _fk("lti_logins", "platform_id", "lti_platforms"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_logins")),
        sa.UniqueConstraint("state", name=op.f("uq_lti_logins_state")),
    )
    op.create_index("ix_lti_logins_expires_at", "lti_logins", ["expires_at"])
    op.create_table(
        "lti_nonces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("nonce", sa.String(255), nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        _fk("lti_nonces", "platform_id", "lti_platforms"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_nonces")),
        sa.UniqueConstraint("platform_id", "nonce", name=op.f("uq_lti_nonces_platform_nonce")),
    )
    op.create_index("ix_lti_nonces_expires_at", "lti_nonces", ["expires_at"])
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("lineitems_url", sa.String(1000), nullable=True),
        sa.Column("ags_scopes", sa.JSON(), nullable=False),
        sa.Column("memberships_url", sa.String(1000), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        _fk("lti_contexts", "deployment_id", "lti_deployments"),
        _fk("lti_contexts", "course_id", "courses"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_contexts")),
        sa.UniqueConstraint("deployment_id", "context_id", name=op.f("uq_lti_contexts_deployment_context")),
    )
    op.create_index("ix_lti_contexts_course_id", "lti_contexts", ["course_id"])
    op.create_table(
        "lti_user_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        _fk("lti_user_links", "user_id", "users"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_user_links")),
        sa.UniqueConstraint("issuer", "sub", name=op.f("uq_lti_user_links_issuer_sub")),
    )
    op.create_index("ix_lti_user_links_user_id", "lti_user_links", ["user_id"])
    op.create_table(
        "lti_resource_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_link_id", sa.Integer(), nullable=False),
        sa.Column("resource_link_id", sa.String(255), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=True),
        sa.Column("problem_id", sa.Integer(), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint(
            "(assignment_id IS NULL) <> (problem_id IS NULL)", name=op.f("ck_lti_resource_links_one_target")
        ),
        _fk("lti_resource_links", "context_link_id", "lti_contexts"),
        _fk("lti_resource_links", "assignment_id", "assignments"),
        _fk("lti_resource_links", "problem_id", "problems"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_resource_links")),
        sa.UniqueConstraint(
            "context_link_id", "resource_link_id", name=op.f("uq_lti_resource_links_context_link")
        ),
    )
    op.create_table(
        "lti_line_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("context_link_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(1000), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        _fk("lti_line_items", "assignment_id", "assignments"),
        _fk("lti_line_items", "context_link_id", "lti_contexts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_line_items")),
        sa.UniqueConstraint(
            "assignment_id", "context_link_id", name=op.f("uq_lti_line_items_assignment_context")
        ),
    )
    op.create_index("ix_lti_line_items_context_link_id", "lti_line_items", ["context_link_id"])
    op.create_table(
        "lti_grade_syncs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("line_item_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", TZ, nullable=False),
        sa.Column("marked_at", TZ, nullable=False),
        sa.Column("sent_score", sa.Float(), nullable=True),
        sa.Column("sent_at", TZ, nullable=True),
        sa.Column("last_error", sa.String(1000), nullable=False),
        sa.CheckConstraint("status IN ('pending', 'sent', 'failed')", name=op.f("ck_lti_grade_syncs_status")),
        _fk("lti_grade_syncs", "line_item_id", "lti_line_items"),
        _fk("lti_grade_syncs", "user_id", "users"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_grade_syncs")),
        sa.UniqueConstraint("line_item_id", "user_id", name=op.f("uq_lti_grade_syncs_line_item_user")),
    )
    op.create_index("ix_lti_grade_syncs_due", "lti_grade_syncs", ["status", "next_attempt_at"])
    op.create_index("ix_lti_grade_syncs_user_id", "lti_grade_syncs", ["user_id"])


def downgrade() -> None:
    for table in (
        "lti_grade_syncs",
        "lti_line_items",
        "lti_resource_links",
        "lti_user_links",
        "lti_contexts",
        "lti_nonces",
        "lti_logins",
        "lti_tool_keys",
        "lti_deployments",
        "lti_platforms",
    ):
        op.drop_table(table)
