"""Who calls the solutions routes: a session user (CSRF on writes) or a token's owner — ``read``
to read, ``submit`` to publish, vote, comment, give up or delete, ``teach`` for an assignment's
hold. Posts have their own rate limit window in the app's limiter."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.deps import ReadCaller, SubmitCaller, TeachWriteCaller
from app.kit.limits import Quota, app_limiter

LIMIT_WINDOW = "solution-posts:"  # its Redis key, inside the deployment's namespace


async def get_post_limiter(request: Request) -> Quota:
    """The posting window, spent at ``TORCHDRILL_SOLUTION_POSTS_PER_MINUTE``."""
    limiter = app_limiter(request, LIMIT_WINDOW, "solutions and comments")
    return Quota(limiter, request.app.state.settings.solution_posts_per_minute)


Reader = ReadCaller
Writer = SubmitCaller
Teacher = TeachWriteCaller
PostLimiter = Annotated[Quota, Depends(get_post_limiter)]
