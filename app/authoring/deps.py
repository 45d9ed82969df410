"""Who may author: instructors and admins, by session (pages, the editor) or by API token.
Which problems each may touch (their own; admins: all) is ``app.authoring.ownership``'s to decide.

Session requests that change something must carry the CSRF token (header or form field);
requests authenticated with ``Authorization: Bearer <token>`` (``app.accounts.deps``) need none,
since a browser never attaches that header by itself. A token needs the ``teach`` scope (403
``insufficient_scope`` without it), for reading as for writing.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request

from app.accounts.deps import ApiCaller, OptionalApiCaller, OptionalUser, user_with_scope
from app.accounts.models import User
from app.accounts.service import require_role
from app.kit.web import require_csrf
from runner.format.problem import SLUG_RE

AUTHOR_ROLES = ("instructor", "admin")


def _author(session_user: User | None, caller: ApiCaller | None) -> User:
    """The ``teach`` scope's caller (``user_with_scope``), then the role. Not the shared
    :data:`~app.accounts.deps.TeachWriteCaller` for writing: the role comes before the CSRF token,
    so a student's session is refused as one that may not author (403 ``forbidden``), whatever
    token it sent."""
    user = user_with_scope(session_user, caller, "teach")
    require_role(user, *AUTHOR_ROLES)
    return user


def author(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    """An instructor or admin, for reading (no CSRF needed)."""
    return _author(session_user, caller)


async def author_writing(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    """An instructor or admin, for writing: session requests must carry the CSRF token."""
    user = _author(session_user, caller)
    if caller is None:
        await require_csrf(request)
    return user


AuthorUser = Annotated[User, Depends(author)]
AuthorWriter = Annotated[User, Depends(author_writing)]
SlugPath = Annotated[
    str, Path(min_length=2, max_length=80, pattern=SLUG_RE.pattern, description="the problem's slug")
]
OwnerId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the owner's user id")]
