"""Who calls the discussion's routes, and its rate limit's window.

Reading takes a session or a token with ``read``; writing a session (with the CSRF token) or a
token with ``submit``. Posting has its own window in the app's limiter (per process, or in Redis
when scaled out).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.deps import ReadCaller, SubmitCaller
from app.kit.limits import Quota, app_limiter

LIMIT_WINDOW = "discussion-posts:"  # its Redis key, inside the deployment's namespace


async def get_post_limiter(request: Request) -> Quota:
    """The posting window, spent at ``TORCHDRILL_DISCUSSION_POSTS_PER_MINUTE``."""
    limiter = app_limiter(request, LIMIT_WINDOW, "discussion posts and edits")
    return Quota(limiter, request.app.state.settings.discussion_posts_per_minute)


Reader = ReadCaller
Writer = SubmitCaller
PostLimiter = Annotated[Quota, Depends(get_post_limiter)]
