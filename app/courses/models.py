"""Courses, their members, invitations, assignments, per-student extensions and regrade runs.

LTI is not built, but the columns it needs exist: a course maps to an LTI context
(``lti_context_id``) and an assignment to a line item (``lti_line_item_id``), both nullable.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.kit.db import Base, UTCDateTime, utcnow

INSTRUCTOR = "instructor"
STUDENT = "student"
ACTIVE = "active"
REMOVED = "removed"
BLOCKED = "blocked"
LEFT = "left"  # the student left the course themselves
MEMBER_STATUSES = (ACTIVE, REMOVED, BLOCKED, LEFT)
AFTER_LAST = ("zero", "closed")


class Course(Base):
    __tablename__ = "courses"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    term: Mapped[str] = mapped_column(String(100), default="")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    join_code: Mapped[str] = mapped_column(String(20), unique=True)
    join_code_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Only invited students may join: the join code enrols nobody (migration 0019).
    invitation_only: Mapped[bool] = mapped_column(Boolean, default=False)
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    lti_context_id: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class CourseMember(Base):
    """A user's place in a course: instructor or student; active, removed, blocked or left.

    When a student is active is kept apart, in :class:`EnrolmentPeriod`: what instructors may see
    of a student's work depends on it (:mod:`app.courses.visibility`).
    """

    __tablename__ = "course_members"
    __table_args__ = (
        UniqueConstraint("course_id", "user_id", name="uq_course_members_course_user"),
        CheckConstraint("role IN ('instructor', 'student')", name="role"),
        CheckConstraint("status IN ('active', 'removed', 'blocked', 'left')", name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default=ACTIVE)
    section: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class EnrolmentPeriod(Base):
    """One stretch of time a student was an active member: from accepting (a join code or an
    invitation) to leaving, removal or blocking (``left_at`` None: still enrolled). Rejoining
    opens a new period; only work done inside a period is the course's (migration 0019)."""

    __tablename__ = "course_enrolment_periods"
    __table_args__ = (Index("ix_course_enrolment_periods_course_user", "course_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime())
    left_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class CourseInvitation(Base):
    """An invitation of one email address (from a roster): only the account with that email can
    accept it, by opening it; until then nothing of theirs is in the course. ``declined_at``: the
    invitee said no (a later roster import does not invite them again)."""

    __tablename__ = "course_invitations"
    __table_args__ = (UniqueConstraint("course_id", "email", name="uq_course_invitations_course_email"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    email: Mapped[str] = mapped_column(String(254))
    section: Mapped[str] = mapped_column(String(100), default="")
    code: Mapped[str] = mapped_column(String(20), unique=True)
    accepted_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    declined_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Assignment(Base):
    """A problem set with a release, a due time, late windows and what happens after the last."""

    __tablename__ = "assignments"
    __table_args__ = (
        CheckConstraint("after_last IN ('zero', 'closed')", name="after_last"),
        # A course's assignments in list order (due, id): the keyset pages' index (migration 0014).
        Index("ix_assignments_course_due", "course_id", "due_at", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(200))
    release_at: Mapped[datetime] = mapped_column(UTCDateTime())
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # [{"until": ISO 8601, "credit": 0..100}], ascending by "until"
    late: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    after_last: Mapped[str] = mapped_column(String(10), default="zero")
    lti_line_item_id: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    problems: Mapped[list[AssignmentProblem]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="AssignmentProblem.position"
    )


class AssignmentProblem(Base):
    __tablename__ = "assignment_problems"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    problem_id: Mapped[int] = mapped_column(
        ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    position: Mapped[int] = mapped_column(Integer, default=0)


class Extension(Base):
    """One student's overrides of an assignment's dates (None keeps the assignment's)."""

    __tablename__ = "assignment_extensions"
    __table_args__ = (UniqueConstraint("assignment_id", "user_id", name="uq_assignment_extensions_pair"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    release_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    late: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Regrade(Base):
    """Re-judging an assignment problem's submissions on a newer version: dry run, then apply.

    ``copies`` maps each original submission to its re-judged copy (owned by the system judge
    account, see :mod:`app.courses.regrades`); progress is counted from the copies, and a run is
    "ready" once all are judged (derived; stored ``status`` goes judging -> applied). ``changes``
    is what applying changed ``[{"user_id", "old", "new", …, "kept"}]`` and ``floors`` the credits
    a "never lower" apply keeps.
    """

    __tablename__ = "course_regrades"
    __table_args__ = (
        CheckConstraint("status IN ('judging', 'ready', 'applied')", name="status"),
        UniqueConstraint("assignment_id", "problem_id", "version_id", name="uq_course_regrades_target"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"))
    version_id: Mapped[int] = mapped_column(ForeignKey("problem_versions.id", ondelete="CASCADE"))
    # Who acted, as a log: plain ids, no foreign keys (see migration 0010).
    started_by_id: Mapped[int | None] = mapped_column(Integer)
    applied_by_id: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(10), default="judging")
    never_lower: Mapped[bool] = mapped_column(Boolean, default=False)
    # {original submission id: re-judged copy id}
    copies: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    changes: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    floors: Mapped[dict[str, float] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    applied_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
