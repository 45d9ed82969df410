from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow


class HintReveal(Base):
    """How many of a problem's hints a learner has revealed (they are revealed in order, one at a time).

    A count, not the hint texts: a new version of the problem may reword its hints, and the learner
    still sees as many as they asked for.
    """

    __tablename__ = "hint_reveals"
    __table_args__ = (CheckConstraint("revealed >= 0", name="revealed"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    revealed: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)
