"""``/api/v1``: a problem's discussion — threads, replies, votes, marks, edit history.

The problem's gate holds on every route (404 for a problem you cannot see, 403 ``premium_required``
for Premium); hidden and deleted posts are absent (404) except a hidden post for its author.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from app.discussion import posting, reading, service
from app.discussion.deps import PostLimiter, Reader, Writer
from app.discussion.models import REPLY, THREAD
from app.discussion.views import HistoryView, ReplyView, ThreadList, ThreadView
from app.kit.db import utcnow
from app.kit.web import SessionDep

router = APIRouter(prefix="/api/v1", tags=["discussion"])

Id = Annotated[int, Path(ge=1, le=2**31 - 1)]
Slug = Annotated[str, Path(max_length=80, description="the problem's slug")]

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not logged in / no valid token"},
    403: {"description": "`premium_required`, `insufficient_scope`, or not yours to change"},
    404: {"description": "No such problem, thread or reply, or not one you may read (a deleted question)"},
    422: {"description": "Invalid fields (`invalid_input`)"},
    429: {"description": "Posting too fast; see the Retry-After header"},
}


class ThreadIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"title": "Why keepdim?", "body": "Without it the shapes differ."}]}
    )
    title: str = Field(
        max_length=posting.MAX_TITLE * 2, description=f"At most {posting.MAX_TITLE} characters"
    )
    body: str = Field(max_length=posting.MAX_BODY * 2, description=f"Markdown, at most {posting.MAX_BODY:,}")


class ThreadEdit(BaseModel):
    title: str | None = Field(default=None, max_length=posting.MAX_TITLE * 2)
    body: str | None = Field(default=None, max_length=posting.MAX_BODY * 2)


class ReplyIn(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"body": "Try `x.sum(dim=1, keepdim=True)`."}]})
    body: str = Field(
        max_length=posting.MAX_REPLY * 2, description=f"Markdown, at most {posting.MAX_REPLY:,}"
    )


class MarksIn(BaseModel):
    """A reply's id sets a mark, null clears it, a missing field leaves it as is."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"answer": 12, "pinned": 12}]})
    answer: int | None = Field(default=None, ge=1, le=2**31 - 1)
    pinned: int | None = Field(default=None, ge=1, le=2**31 - 1)


class VoteOut(BaseModel):
    votes: int
    voted: bool


def _thread(session: SessionDep, thread_id: int, user: Reader) -> ThreadView:
    return reading.thread_view(session, service.load_thread(session, thread_id, user, utcnow()), user)


def _reply(session: SessionDep, reply_id: int, user: Writer) -> ReplyView:
    reply, loaded = service.load_reply(session, reply_id, user, utcnow())
    return reading.reply_views(session, loaded, [reply], user)[0]


@router.get("/problems/{slug}/threads", response_model=ThreadList, responses=ERRORS)
def list_threads(
    slug: Slug,
    user: Reader,
    session: SessionDep,
    sort: Annotated[Literal["newest", "votes"], Query()] = "newest",
    after: Annotated[str | None, Query(max_length=1000, description="The cursor of the next page")] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE_SIZE)] = service.PAGE_SIZE,
) -> ThreadList:
    """A problem's threads, newest first or by votes; keyset-paged (follow `next`)."""
    return service.list_threads(
        session,
        slug,
        user,
        utcnow(),
        sort=sort,
        after=after,
        limit=limit,
        base=f"/api/v1/problems/{quote(slug)}/threads",
    )


@router.post("/problems/{slug}/threads", status_code=201, response_model=ThreadView, responses=ERRORS)
def create_thread(
    slug: Slug, body: ThreadIn, user: Writer, session: SessionDep, limiter: PostLimiter
) -> ThreadView:
    thread = posting.create_thread(session, user, slug, body.title, body.body, utcnow(), limiter)
    return _thread(session, thread.id, user)


@router.get("/threads/{thread_id}", response_model=ThreadView, responses=ERRORS)
def get_thread(
    thread_id: Id,
    user: Reader,
    session: SessionDep,
    after: Annotated[str | None, Query(max_length=1000, description="The cursor of the next replies")] = None,
    limit: Annotated[int, Query(ge=1, le=reading.MAX_REPLY_PAGE)] = reading.REPLY_PAGE,
) -> ThreadView:
    """A thread with one page of its visible replies, oldest first, the pinned reply and the answer
    heading every page; keyset-paged (follow `replies_next`)."""
    loaded = service.load_thread(session, thread_id, user, utcnow())
    return reading.thread_view(session, loaded, user, after=after, limit=limit)


@router.patch("/threads/{thread_id}", response_model=ThreadView, responses=ERRORS)
def edit_thread(
    thread_id: Id, body: ThreadEdit, user: Writer, session: SessionDep, limiter: PostLimiter
) -> ThreadView:
    """Your own thread: the previous text is kept in its history."""
    posting.edit_thread(session, user, thread_id, body.title, body.body, utcnow(), limiter)
    return _thread(session, thread_id, user)


@router.delete("/threads/{thread_id}", status_code=204, responses=ERRORS)
def delete_thread(thread_id: Id, user: Writer, session: SessionDep) -> Response:
    posting.delete_thread(session, user, thread_id, utcnow())
    return Response(status_code=204)


@router.post("/threads/{thread_id}/replies", status_code=201, response_model=ReplyView, responses=ERRORS)
def create_reply(
    thread_id: Id, body: ReplyIn, user: Writer, session: SessionDep, limiter: PostLimiter
) -> ReplyView:
    reply = posting.create_reply(session, user, thread_id, body.body, utcnow(), limiter)
    return _reply(session, reply.id, user)


@router.patch("/replies/{reply_id}", response_model=ReplyView, responses=ERRORS)
def edit_reply(
    reply_id: Id, body: ReplyIn, user: Writer, session: SessionDep, limiter: PostLimiter
) -> ReplyView:
    posting.edit_reply(session, user, reply_id, body.body, utcnow(), limiter)
    return _reply(session, reply_id, user)


@router.delete("/replies/{reply_id}", status_code=204, responses=ERRORS)
def delete_reply(reply_id: Id, user: Writer, session: SessionDep) -> Response:
    posting.delete_reply(session, user, reply_id, utcnow())
    return Response(status_code=204)


@router.put("/threads/{thread_id}/marks", response_model=ThreadView, responses=ERRORS)
def mark_thread(thread_id: Id, body: MarksIn, user: Writer, session: SessionDep) -> ThreadView:
    """The thread's author, the problem's owners and instructors: mark the answer, pin a reply."""
    given = body.model_fields_set
    posting.mark(
        session,
        user,
        thread_id,
        now=utcnow(),
        answer=body.answer if "answer" in given else False,
        pinned=body.pinned if "pinned" in given else False,
    )
    return _thread(session, thread_id, user)


def _vote(session: SessionDep, user: Writer, kind: str, post_id: int, up: bool) -> VoteOut:
    return VoteOut(votes=posting.vote(session, user, kind, post_id, up, utcnow()), voted=up)


@router.put("/threads/{thread_id}/vote", response_model=VoteOut, responses=ERRORS)
def vote_thread(thread_id: Id, user: Writer, session: SessionDep) -> VoteOut:
    """Vote for a thread (once; not your own)."""
    return _vote(session, user, THREAD, thread_id, True)


@router.delete("/threads/{thread_id}/vote", response_model=VoteOut, responses=ERRORS)
def unvote_thread(thread_id: Id, user: Writer, session: SessionDep) -> VoteOut:
    return _vote(session, user, THREAD, thread_id, False)


@router.put("/replies/{reply_id}/vote", response_model=VoteOut, responses=ERRORS)
def vote_reply(reply_id: Id, user: Writer, session: SessionDep) -> VoteOut:
    return _vote(session, user, REPLY, reply_id, True)


@router.delete("/replies/{reply_id}/vote", response_model=VoteOut, responses=ERRORS)
def unvote_reply(reply_id: Id, user: Writer, session: SessionDep) -> VoteOut:
    return _vote(session, user, REPLY, reply_id, False)


@router.get("/threads/{thread_id}/history", response_model=HistoryView, responses=ERRORS)
def thread_history(thread_id: Id, user: Reader, session: SessionDep) -> HistoryView:
    return service.history(session, THREAD, thread_id, user, utcnow())


@router.get("/replies/{reply_id}/history", response_model=HistoryView, responses=ERRORS)
def reply_history(reply_id: Id, user: Reader, session: SessionDep) -> HistoryView:
    return service.history(session, REPLY, reply_id, user, utcnow())
