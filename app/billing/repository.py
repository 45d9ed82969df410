from __future__ import annotations

from sqlalchemy.orm import Session

from app.billing.models import BillingEvent


def get_event(session: Session, event_id: str) -> BillingEvent | None:
    return session.get(BillingEvent, event_id)


def add_event(session: Session, event: BillingEvent) -> BillingEvent:
    session.add(event)
    session.flush()
    return event
