"""``/api/v1``: a problem's published solutions, its editorial, votes, comments and give-ups.

The gates are the pages': a problem the caller may not know is a 404, a Premium one without
Premium a 403 ``premium_required``, and its solutions before solving or giving up a 403
``solutions_locked`` (``GET …/solutions/status`` says which and why, without failing).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from app.kit.db import utcnow
from app.kit.paging import next_url
from app.kit.web import SessionDep
from app.solutions import editorial, holds, service
from app.solutions.deps import PostLimiter, Reader, Teacher, Writer
from app.solutions.views import (
    CommentList,
    CommentView,
    EditorialView,
    SolutionList,
    SolutionsState,
    SolutionView,
)

router = APIRouter(prefix="/api/v1", tags=["solutions"])

Slug = Annotated[str, Path(max_length=80, description="The problem's slug")]
SolutionId = Annotated[int, Path(ge=1, le=2**31 - 1, description="The solution's id")]
CommentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="The comment's id")]
AssignmentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="The assignment's id")]

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not logged in / no valid token"},
    403: {"description": "`solutions_locked` (solve the problem or give up first, or your course holds "
                         "them until the deadline), `premium_required`, `insufficient_scope`, `forbidden`"},
    404: {"description": "No such problem, solution or comment (or not one you may see)"},
    409: {"description": "The submission is already published"},
    422: {"description": "Invalid fields (`invalid_input`)"},
    429: {"description": "Too many posts; see the Retry-After header"},
}  # fmt: skip


class SolutionIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"submission_id": 42, "title": "Broadcast, no loop",
                          "write_up": "Add a trailing axis: `x * s[:, None]`.", "tags": ["broadcasting"]}]
        }
    )  # fmt: skip
    submission_id: int = Field(ge=1, le=2**31 - 1, description="Your accepted Submit on this problem")
    title: str = Field(max_length=service.MAX_TITLE, description="One line")
    write_up: str = Field(max_length=service.MAX_WRITE_UP, description="Markdown ($math$ allowed)")
    tags: list[str] = Field(default=[], max_length=service.MAX_TAGS, description="Approach tags")


class CommentIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"body": "Neat: why `None` and not `unsqueeze`?"}]}
    )
    body: str = Field(max_length=service.MAX_COMMENT, description="Markdown")


class HoldIn(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"held": True}]})
    held: bool = Field(description="Hold the assignment's solutions from students until its deadline")


class HoldOut(BaseModel):
    assignment_id: int
    held: bool


@router.get("/problems/{slug}/solutions/status", response_model=SolutionsState, responses=ERRORS)
def solutions_status(slug: Slug, user: Reader, session: SessionDep) -> SolutionsState:
    """Whether you may read the problem's solutions, and why (never 403 `solutions_locked`)."""
    found = service.state(session, slug, user, utcnow())
    return service.state_view(found, bool(editorial.source(session, found.problem).strip()))


@router.get("/problems/{slug}/solutions", response_model=SolutionList, responses=ERRORS)
def list_solutions(
    slug: Slug,
    user: Reader,
    session: SessionDep,
    sort: Annotated[
        str, Query(pattern="^(votes|newest)$", description="votes (default) or newest")
    ] = "votes",
    tag: Annotated[
        str | None, Query(max_length=service.MAX_TAG, description="Only this approach tag")
    ] = None,
    after: Annotated[str | None, Query(max_length=1000, description="The cursor of the next page")] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE)] = service.PAGE_SIZE,
) -> SolutionList:
    """The problem's solutions, most votes (or newest) first; after solving it or giving up."""
    found, items, cursor = service.listing(session, user, slug, utcnow(), sort=sort, tag=tag, after=after,
                                           limit=limit)  # fmt: skip
    params = {"sort": sort, "tag": tag, "limit": limit}
    return SolutionList(
        items=items, next=next_url(f"/api/v1/problems/{found.problem.slug}/solutions", params, cursor)
    )


@router.post("/problems/{slug}/solutions", status_code=201, response_model=SolutionView, responses=ERRORS)
def publish_solution(
    slug: Slug,
    body: SolutionIn,
    user: Writer,
    session: SessionDep,
    limiter: PostLimiter,
) -> SolutionView:
    """Publish one of your accepted Submits on the problem, with a write-up and approach tags."""
    now = utcnow()
    solution = service.publish(session, user, slug, body.submission_id, body.title, body.write_up, body.tags,
                               now, limiter=limiter)  # fmt: skip
    return service.read(session, user, solution.id, now)[0]


@router.post("/problems/{slug}/give-up", response_model=SolutionsState, responses=ERRORS)
def give_up(slug: Slug, user: Writer, session: SessionDep) -> SolutionsState:
    """ "Give up and show solutions": opens the solutions and editorial unsolved (recorded with its time)."""
    found = service.give_up(session, user, slug, utcnow())
    return service.state_view(found, bool(editorial.source(session, found.problem).strip()))


@router.get("/problems/{slug}/editorial", response_model=EditorialView, responses=ERRORS)
def read_editorial(slug: Slug, user: Reader, session: SessionDep) -> EditorialView:
    """The problem's editorial (404 when it has none); opens like its solutions."""
    return editorial.read(session, user, slug, utcnow())


@router.get("/solutions/{solution_id}", response_model=SolutionView, responses=ERRORS)
def get_solution(solution_id: SolutionId, user: Reader, session: SessionDep) -> SolutionView:
    return service.read(session, user, solution_id, utcnow())[0]


@router.delete("/solutions/{solution_id}", status_code=204, responses=ERRORS)
def delete_solution(solution_id: SolutionId, user: Writer, session: SessionDep) -> Response:
    """Delete your solution (it leaves every listing, page and answer)."""
    service.delete(session, user, solution_id, utcnow())
    return Response(status_code=204)


@router.put("/solutions/{solution_id}/vote", response_model=SolutionView, responses=ERRORS)
def vote(solution_id: SolutionId, user: Writer, session: SessionDep) -> SolutionView:
    """Up-vote a solution (once; not your own). Doing it again changes nothing."""
    return service.vote(session, user, solution_id, True, utcnow())


@router.delete("/solutions/{solution_id}/vote", response_model=SolutionView, responses=ERRORS)
def unvote(solution_id: SolutionId, user: Writer, session: SessionDep) -> SolutionView:
    """Take your vote back."""
    return service.vote(session, user, solution_id, False, utcnow())


@router.get("/solutions/{solution_id}/comments", response_model=CommentList, responses=ERRORS)
def list_comments(
    solution_id: SolutionId,
    user: Reader,
    session: SessionDep,
    after: Annotated[str | None, Query(max_length=1000, description="The cursor of the next page")] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE)] = service.MAX_PAGE,
) -> CommentList:
    """A solution's comments, oldest first."""
    items, cursor = service.comments(session, user, solution_id, utcnow(), after=after, limit=limit)
    return CommentList(
        items=items, next=next_url(f"/api/v1/solutions/{solution_id}/comments", {"limit": limit}, cursor)
    )


@router.post(
    "/solutions/{solution_id}/comments", status_code=201, response_model=CommentView, responses=ERRORS
)
def add_comment(
    solution_id: SolutionId,
    body: CommentIn,
    user: Writer,
    session: SessionDep,
    limiter: PostLimiter,
) -> CommentView:
    row = service.comment(session, user, solution_id, body.body, utcnow(), limiter=limiter)
    return CommentView.of(row, reader_id=user.id)


@router.delete("/solution-comments/{comment_id}", status_code=204, responses=ERRORS)
def delete_comment(comment_id: CommentId, user: Writer, session: SessionDep) -> Response:
    """Delete your comment."""
    service.delete_comment(session, user, comment_id, utcnow())
    return Response(status_code=204)


@router.put("/assignments/{assignment_id}/solution-hold", response_model=HoldOut, responses=ERRORS)
def set_hold(assignment_id: AssignmentId, body: HoldIn, user: Teacher, session: SessionDep) -> HoldOut:
    """Instructors: hold the assignment's problems' solutions and editorials from the course's
    students until the assignment closes for each of them (extensions count), or release them."""
    held = holds.set_hold(session, user, assignment_id, body.held, utcnow())
    return HoldOut(assignment_id=assignment_id, held=held)
