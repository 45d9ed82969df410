"""LTI 1.3: registered platforms, the tool's keys, one-use logins and nonces, and the links from an
LMS's contexts, users, resource links and line items to Torchdrill's courses, accounts,
assignments/problems — plus the grade passback queue.

Links, never copies: a course keeps its own id; ``lti_contexts`` says which LMS contexts point at
it (several may). The older single columns ``courses.lti_context_id`` and
``assignments.lti_line_item_id`` stay in step for the first link only (docs/courses.md).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow

PENDING = "pending"
SENT = "sent"
FAILED = "failed"  # gave up after the last retry; a resend puts it back to pending


class LtiPlatform(Base):
    """An LMS registration: the issuer and the client id it gave this tool, and its three URLs."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_url: Mapped[str] = mapped_column(String(1000))
    token_url: Mapped[str] = mapped_column(String(1000))
    jwks_url: Mapped[str] = mapped_column(String(1000))
    # Where the LMS shows its pages, if neither the issuer's nor the auth URL's origin (Canvas
    # cloud: the school's address): it may frame the tool too ("" = none).
    lms_url: Mapped[str] = mapped_column(String(1000), default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiDeployment(Base):
    __tablename__ = "lti_deployments"
    __table_args__ = (
        UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments_platform_deployment"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiToolKey(Base):
    """One of the tool's RSA key pairs (private part sealed under the secret key). The newest
    unretired one signs; a retired one stays published until ``published_until``."""

    __tablename__ = "lti_tool_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    kid: Mapped[str] = mapped_column(String(100), unique=True)
    private_jwk: Mapped[str] = mapped_column(Text)  # sealed JSON (app/kit/sealing.py)
    public_jwk: Mapped[dict[str, str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    published_until: Mapped[datetime | None] = mapped_column(UTCDateTime())


class LtiLogin(Base):
    """A third-party login started at /lti/login: its state (also in the browser's cookie) and
    nonce, used once by the launch that answers it."""

    __tablename__ = "lti_logins"

    id: Mapped[int] = mapped_column(primary_key=True)
    state: Mapped[str] = mapped_column(String(100), unique=True)
    nonce: Mapped[str] = mapped_column(String(100))
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class LtiNonce(Base):
    """A nonce a launch carried: a second id_token with it is a replay (kept until it expires)."""

    __tablename__ = "lti_nonces"
    __table_args__ = (UniqueConstraint("platform_id", "nonce", name="uq_lti_nonces_platform_nonce"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    nonce: Mapped[str] = mapped_column(String(255))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class LtiContext(Base):
    """An LMS context (a course there) linked to a Torchdrill course, with its service URLs."""

    __tablename__ = "lti_contexts"
    __table_args__ = (
        UniqueConstraint("deployment_id", "context_id", name="uq_lti_contexts_deployment_context"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    deployment_id: Mapped[int] = mapped_column(ForeignKey("lti_deployments.id", ondelete="CASCADE"))
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255), default="")
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    lineitems_url: Mapped[str | None] = mapped_column(String(1000))
    ags_scopes: Mapped[list[str]] = mapped_column(JSON, default=list)
    memberships_url: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiUserLink(Base):
    """An LMS user (issuer, sub) → a Torchdrill account. Never matched by e-mail."""

    __tablename__ = "lti_user_links"
    __table_args__ = (UniqueConstraint("issuer", "sub", name="uq_lti_user_links_issuer_sub"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    sub: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiResourceLink(Base):
    """A link placed in an LMS context → an assignment or a problem."""

    __tablename__ = "lti_resource_links"
    __table_args__ = (
        UniqueConstraint("context_link_id", "resource_link_id", name="uq_lti_resource_links_context_link"),
        CheckConstraint("(assignment_id IS NULL) <> (problem_id IS NULL)", name="one_target"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    context_link_id: Mapped[int] = mapped_column(ForeignKey("lti_contexts.id", ondelete="CASCADE"))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    problem_id: Mapped[int | None] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiLineItem(Base):
    """The LMS gradebook column of one assignment in one context (created once, then reused).

    An empty ``url``: the column is wanted but not made yet (the platform failed during the
    launch); the passback sweep makes it, claiming the row by moving ``retry_at`` ahead.
    """

    __tablename__ = "lti_line_items"
    __table_args__ = (
        UniqueConstraint("assignment_id", "context_link_id", name="uq_lti_line_items_assignment_context"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    context_link_id: Mapped[int] = mapped_column(
        ForeignKey("lti_contexts.id", ondelete="CASCADE"), index=True
    )
    url: Mapped[str] = mapped_column(String(1000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    retry_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_error: Mapped[str] = mapped_column(String(1000), default="", server_default="")


class LtiGradeSync(Base):
    """One student's score for one line item, waiting to reach the LMS (or sent).

    One row per (line item, student): a newer verdict or a regrade marks it pending again, so the
    LMS gets the assignment's current score, not each attempt. Failures back off
    (``next_attempt_at``); after the last try it is ``failed`` until an instructor resends it.
    """

    __tablename__ = "lti_grade_syncs"
    __table_args__ = (
        UniqueConstraint("line_item_id", "user_id", name="uq_lti_grade_syncs_line_item_user"),
        CheckConstraint("status IN ('pending', 'sent', 'failed')", name="status"),
        Index("ix_lti_grade_syncs_due", "status", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    line_item_id: Mapped[int] = mapped_column(ForeignKey("lti_line_items.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(10), default=PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    marked_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    sent_score: Mapped[float | None] = mapped_column(Float)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_error: Mapped[str] = mapped_column(String(1000), default="")
