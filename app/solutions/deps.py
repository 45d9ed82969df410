"""Who calls the solutions routes: a session user (CSRF on writes) or a token's owner — ``read``
to read, ``submit`` to publish, vote, comment, give up or delete, ``teach`` for an assignment's
hold. Posts have their own rate limit window in the app's limiter."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts.deps import ReadCaller, SubmitCaller, TeachWriteCaller
from app.kit.limits import RequestLimiter, make_limiter

LIMIT_WINDOW = "solution-posts:"  # its Redis key, inside the deployment's namespace


async def get_post_limiter(request: Request) -> RequestLimiter:
    limiter: RequestLimiter | None = getattr(request.app.state, "solution_post_limiter", None)
    if limiter is None:
        limiter = request.app.state.solution_post_limiter = make_limiter(
            request.app.state.settings, LIMIT_WINDOW, "solutions and comments"
        )
    return limiter


Reader = ReadCaller
Writer = SubmitCaller
Teacher = TeachWriteCaller
PostLimiter = Annotated[RequestLimiter, Depends(get_post_limiter)]
