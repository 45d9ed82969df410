"""Accounts: sign-up, log-in and the premium entitlement seam."""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import ROLES, User
from app.kit.errors import FormErrors
from app.kit.security import hash_password, needs_rehash, verify_password

EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s.]{2,}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 1024


def normalise_email(email: str) -> str:
    return email.strip().lower()


def sign_up(session: Session, email: str, password: str, role: str = "student") -> User:
    """Create an account, or raise :class:`FormErrors` naming each bad field."""
    email = normalise_email(email)
    errors: dict[str, str] = {}
    if not email:
        errors["email"] = "Enter your email address."
    elif len(email) > 254 or not EMAIL_RE.match(email):
        errors["email"] = "Enter a valid email address, like ada@example.com."
    if not password:
        errors["password"] = "Choose a password."
    elif len(password) < MIN_PASSWORD:
        errors["password"] = f"Use at least {MIN_PASSWORD} characters."
    elif len(password) > MAX_PASSWORD:
        errors["password"] = f"Use at most {MAX_PASSWORD} characters."
    if role not in ROLES:
        errors["role"] = f"Role must be one of {', '.join(ROLES)}."
    if "email" not in errors and repository.get_user_by_email(session, email) is not None:
        errors["email"] = "An account with this email already exists. Log in instead."
    if errors:
        raise FormErrors(errors)
    try:
        with session.begin_nested():
            return repository.add_user(
                session, User(email=email, password_hash=hash_password(password), role=role)
            )
    except IntegrityError:  # a concurrent sign-up with the same email won the race
        raise FormErrors({"email": "An account with this email already exists. Log in instead."}) from None


def authenticate(session: Session, email: str, password: str) -> User:
    user = repository.get_user_by_email(session, normalise_email(email))
    if user is None or not verify_password(user.password_hash, password):
        raise FormErrors({"form": "Email or password is incorrect."})
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.flush()
    return user


def get_user(session: Session, user_id: int) -> User | None:
    return repository.get_user(session, user_id)


def is_premium(user: User | None, now: datetime) -> bool:
    """Whether ``user`` has Premium at ``now``. The only entitlement rule in the app.

    For now only admins do; the billing follow-up changes this function and nothing else.
    """
    del now  # subscriptions will be time-bound
    return user is not None and user.is_admin
