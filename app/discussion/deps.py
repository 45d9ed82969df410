"""Who calls the discussion's routes, and its rate limit's window.

Reading takes a session or a token with ``read``; writing a session (with the CSRF token) or a
token with ``submit``. Posting has its own window in the app's limiter (per process, or in Redis
when scaled out).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.deps import OptionalApiCaller, OptionalUser, user_with_scope, writer_with_scope
from app.accounts.models import User
from app.kit.limits import Quota, RequestLimiter, make_limiter

LIMIT_WINDOW = "discussion-posts:"  # its Redis key, inside the deployment's namespace


def reader(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return user_with_scope(session_user, caller, "read")


async def writer(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
    return await writer_with_scope(request, session_user, caller, "submit")


async def get_post_limiter(request: Request) -> Quota:
    """The posting window, spent at ``TORCHDRILL_DISCUSSION_POSTS_PER_MINUTE``."""
    settings = request.app.state.settings
    limiter: RequestLimiter | None = getattr(request.app.state, "discussion_limiter", None)
    if limiter is None:
        limiter = request.app.state.discussion_limiter = make_limiter(
            settings, LIMIT_WINDOW, "discussion posts and edits"
        )
    return Quota(limiter, settings.discussion_posts_per_minute)


Reader = Annotated[User, Depends(reader)]
Writer = Annotated[User, Depends(writer)]
PostLimiter = Annotated[Quota, Depends(get_post_limiter)]
