from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow


class BillingEvent(Base):
    """A provider event already acted on: its id is the primary key, so a replay cannot grant twice."""

    __tablename__ = "billing_events"

    event_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    provider: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(100))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    grant_id: Mapped[int | None] = mapped_column(ForeignKey("premium_grants.id", ondelete="SET NULL"))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
