from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts import service
from app.accounts.models import User
from app.kit.errors import LoginRequired
from app.kit.web import SessionDep

SESSION_USER_KEY = "uid"


def optional_user(request: Request, session: SessionDep) -> User | None:
    """The logged-in user, or None; also exposes the user to page templates."""
    user_id = request.session.get(SESSION_USER_KEY)
    user = service.get_user(session, user_id) if isinstance(user_id, int) else None
    if user is None and user_id is not None:
        request.session.pop(SESSION_USER_KEY, None)
    # Templates get plain values: error pages render after the session has rolled back and closed.
    viewer = {"id": user.id, "email": user.email, "role": user.role} if user is not None else None
    request.state.page_context = {**getattr(request.state, "page_context", {}), "current_user": viewer}
    return user


def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise LoginRequired()
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]


def admin_user(user: CurrentUser) -> User:
    service.require_role(user, "admin")
    return user


def staff_user(user: CurrentUser) -> User:
    service.require_role(user, "instructor", "admin")
    return user


AdminUser = Annotated[User, Depends(admin_user)]
StaffUser = Annotated[User, Depends(staff_user)]


def client_address(request: Request) -> str:
    """The peer address used for log-in throttling (proxy headers are not trusted)."""
    return request.client.host if request.client else "unknown"
