"""Who calls the solutions routes: a session user (CSRF on writes) or a token's owner — ``read``
to read, ``submit`` to publish, vote, comment, give up or delete, ``teach`` for an assignment's
hold. Posts have their own rate limit window in the app's limiter."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.deps import OptionalApiCaller, OptionalUser, user_with_scope, writer_with_scope
from app.accounts.models import User
from app.kit.limits import RequestLimiter, make_limiter

LIMIT_WINDOW = "solution-posts:"  # its Redis key, inside the deployment's namespace


def reader(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return user_with_scope(session_user, caller, "read")


async def writer(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return await writer_with_scope(request, session_user, caller, "submit")


async def teacher(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return await writer_with_scope(request, session_user, caller, "teach")


async def get_post_limiter(request: Request) -> RequestLimiter:
    limiter: RequestLimiter | None = getattr(request.app.state, "solution_post_limiter", None)
    if limiter is None:
        limiter = request.app.state.solution_post_limiter = make_limiter(
            request.app.state.settings, LIMIT_WINDOW, "solutions and comments"
        )
    return limiter


Reader = Annotated[User, Depends(reader)]
Writer = Annotated[User, Depends(writer)]
Teacher = Annotated[User, Depends(teacher)]
PostLimiter = Annotated[RequestLimiter, Depends(get_post_limiter)]
