"""A learner's report that one test case of their submission is wrong, and its answer."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow

OPEN = "open"
NOT_A_BUG = "not_a_bug"
FIXED = "fixed"
STATUSES = (OPEN, NOT_A_BUG, FIXED)


class TestReport(Base):
    """ "I think this test is wrong": one case of one submission, with the learner's note.

    ``rejudge_id`` is the re-judged copy of the submission on ``rejudge_version_id`` (owned by the
    regrade judge account, :func:`app.courses.regrades.judge_account`): the learner's own
    submission is never rewritten; its outcome is read from the copy.
    """

    __test__ = False  # not a pytest class, whatever its name
    __tablename__ = "test_reports"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'not_a_bug', 'fixed')", name="status"),
        UniqueConstraint("submission_id", "case_name", name="uq_test_reports_submission_case"),
        Index("ix_test_reports_problem_id", "problem_id", "id"),
        Index("ix_test_reports_reporter_id", "reporter_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"))
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    case_name: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10), default=OPEN)
    reply: Mapped[str] = mapped_column(Text, default="")
    # Who answered, as a log: a plain id (as the regrade runs keep theirs).
    answered_by_id: Mapped[int | None] = mapped_column(Integer)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rejudge_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id", ondelete="SET NULL"))
    rejudge_version_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
