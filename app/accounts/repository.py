from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User


def get_user(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def get_user_by_email(session: Session, email: str) -> User | None:
    return session.scalars(select(User).where(User.email == email)).first()


def add_user(session: Session, user: User) -> User:
    session.add(user)
    session.flush()
    return user
