"""Accounts: users, their sign-in sessions, premium entitlements, premium codes, API tokens and
failed log-ins."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, Integer, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.kit.db import Base, UTCDateTime, utcnow

ROLES = ("student", "instructor", "admin")
STAFF_ROLES = ("instructor", "admin")


class User(Base):
    __tablename__ = "users"
    __table_args__ = (CheckConstraint("role IN ('student', 'instructor', 'admin')", name="role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(20), default="student", server_default="student")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # Bumped by a password change or reset (``service.end_access``): a two-factor sign-in pending
    # since then is void (``two_factor_login``). Sessions themselves are rows (``UserSession``).
    session_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Two-factor sign-in (accounts/two_factor.py): the TOTP secret, sealed with a key derived from
    # TORCHDRILL_SECRET_KEY (kit/sealing.py); on while ``totp_enabled_at`` is set (a secret without it
    # is being set up); ``totp_last_step`` is the last time step accepted, so no code works twice.
    totp_secret: Mapped[str | None] = mapped_column(String(200))
    totp_enabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    totp_last_step: Mapped[int | None] = mapped_column(BigInteger)

    # Loaded with the user, so the entitlement check needs no session (pages render after commit).
    premium_grants: Mapped[list[PremiumGrant]] = relationship(
        lazy="selectin",
        order_by="PremiumGrant.expires_at",
        foreign_keys="PremiumGrant.user_id",
        viewonly=True,
    )

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def is_staff(self) -> bool:
        return self.role in STAFF_ROLES

    @property
    def two_factor_on(self) -> bool:
        return self.totp_enabled_at is not None


class PremiumGrant(Base):
    """Premium from ``starts_at`` until ``expires_at`` (exclusive), unless revoked earlier."""

    __tablename__ = "premium_grants"
    __table_args__ = (
        # One redemption of a code per learner (NULL code ids, i.e. admin grants, never collide).
        UniqueConstraint("code_id", "user_id", name="uq_premium_grants_code_user"),
        CheckConstraint("source IN ('admin', 'code', 'billing')", name="source"),
        Index("ix_premium_grants_user_expires", "user_id", "expires_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    source: Mapped[str] = mapped_column(String(10))
    code_id: Mapped[int | None] = mapped_column(ForeignKey("premium_codes.id", ondelete="SET NULL"))
    granted_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    def active_at(self, now: datetime) -> bool:
        return self.revoked_at is None and self.starts_at <= now < self.expires_at


class PremiumCode(Base):
    """A code an instructor hands to a class: ``max_uses`` redemptions, each worth ``days`` of Premium."""

    __tablename__ = "premium_codes"
    __table_args__ = (
        CheckConstraint("max_uses >= 1", name="max_uses"),
        CheckConstraint("uses >= 0 AND uses <= max_uses", name="uses"),
        CheckConstraint("days >= 1", name="days"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(40), unique=True)
    label: Mapped[str] = mapped_column(String(200), default="")
    max_uses: Mapped[int] = mapped_column(Integer)
    uses: Mapped[int] = mapped_column(Integer, default=0)
    days: Mapped[int] = mapped_column(Integer)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class UserSession(Base):
    """One signed-in browser: the cookie carries a random id, the table only its SHA-256.

    A request is signed in while its row is live (not revoked, not expired): logging out, a
    password change or reset and "sign out everywhere" set ``revoked_at``, so a copy of the cookie
    stops working at once. ``last_seen_at`` moves at most once a minute (``accounts.sessions``).
    """

    __tablename__ = "user_sessions"
    __table_args__ = (
        # The account page's "where you're signed in" (a user's live sessions, newest first).
        Index(
            "ix_user_sessions_live",
            "user_id",
            "created_at",
            sqlite_where=text("revoked_at IS NULL"),
            postgresql_where=text("revoked_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    id_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    user_agent: Mapped[str] = mapped_column(String(200), default="")
    client: Mapped[str] = mapped_column(String(100), default="")

    def live_at(self, now: datetime) -> bool:
        return self.revoked_at is None and now < self.expires_at


class ApiToken(Base):
    """A personal access token; only its SHA-256 is stored (the token is shown once).

    ``scopes`` is a space-separated subset of ``read submit teach`` (``accounts.tokens``); a token
    stops working when revoked or once ``expires_at`` (if any) has passed.
    """

    __tablename__ = "api_tokens"
    __table_args__ = (
        # The token list's keyset order (newest first), over live tokens only (migration 0014).
        Index(
            "ix_api_tokens_live",
            "user_id",
            "created_at",
            "id",
            sqlite_where=text("revoked_at IS NULL"),
            postgresql_where=text("revoked_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    scopes: Mapped[str] = mapped_column(String(40), default="read submit")
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    @property
    def scope_set(self) -> frozenset[str]:
        return frozenset(self.scopes.split())

    def live_at(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)


class LoginFailure(Base):
    """A failed log-in, kept for the throttling window: counted per (email, client), per client, and
    per email: from browsers that never logged in to that account together (``browser`` NULL), from
    each browser that did by its id (``accounts.browsers``)."""

    __tablename__ = "login_failures"
    __table_args__ = (
        Index("ix_login_failures_email_at", "email", "at"),
        Index("ix_login_failures_client_at", "client", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254))
    client: Mapped[str] = mapped_column(String(100))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    browser: Mapped[str | None] = mapped_column(String(32))


class ClientAttempt(Base):
    """One attempt of a limited action by a client address (a sign-up), kept for the limit's hour,
    so every process counts the same attempts."""

    __tablename__ = "client_attempts"
    __table_args__ = (Index("ix_client_attempts_action_client_at", "action", "client", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    action: Mapped[str] = mapped_column(String(20))
    client: Mapped[str] = mapped_column(String(100))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class PasswordReset(Base):
    """One "Forgot password?" request. Unknown emails are recorded too (no token), so the rate limits
    answer alike whether or not an account exists. Only the token's SHA-256 is stored."""

    __tablename__ = "password_resets"
    __table_args__ = (
        Index("ix_password_resets_email_created", "email", "created_at"),
        Index("ix_password_resets_client_created", "client", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(254))
    client: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class RecoveryCode(Base):
    """A one-use code that replaces the authenticator app once; only its keyed hash is stored."""

    __tablename__ = "recovery_codes"
    __table_args__ = (UniqueConstraint("user_id", "code_hash", name="uq_recovery_codes_user_hash"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    code_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class TwoFactorAttempt(Base):
    """One try of a second factor (or of the password that guards the 2FA settings), kept for the
    throttling window: a few per user, then wait."""

    __tablename__ = "two_factor_attempts"
    __table_args__ = (Index("ix_two_factor_attempts_user_at", "user_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
