"""JSON endpoints the problem page calls (session cookie + X-CSRF-Token header)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from app.accounts.deps import CurrentUser
from app.kit.db import utcnow
from app.kit.logging import tag_request
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, get_database
from app.problems import service as problems
from app.submissions import service
from app.submissions.deps import DispatcherDep, WaiterDep
from app.submissions.gate import gate_for
from app.submissions.models import FINISHED, Submission
from app.submissions.waiting import WaitingResponse, wait_for

router = APIRouter(prefix="/api", tags=["submissions"])


class SubmissionIn(BaseModel):
    code: str = Field(description="The learner's solution.py")
    mode: Literal["run", "submit", "custom"] = Field(
        description="run: public cases only; submit: every case; custom: the learner's own input"
    )
    input_text: str | None = Field(
        default=None, description="custom: the arguments as typed (JSON or Python literals)"
    )


@router.post("/problems/{slug}/submissions", status_code=202, dependencies=[CsrfProtected])
def create_submission(
    request: Request,
    slug: str,
    body: SubmissionIn,
    user: CurrentUser,
    session: SessionDep,
    dispatcher: DispatcherDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    now = utcnow()
    submission = service.create_submission(
        session,
        dispatcher,
        user,
        slug,
        body.code,
        body.mode,
        max_code_bytes=settings.max_code_bytes,
        per_minute=settings.api_submissions_per_minute,  # every route, every mode (app.submissions.limit)
        now=now,
        custom_text=body.input_text,
    )
    tag_request(request.state, submission.id)
    return service.page_view(session, user, submission, service.problem_of(session, submission), now)


@router.get("/problems/{slug}/submissions")
def list_submissions(
    slug: str,
    user: CurrentUser,
    session: SessionDep,
    before: Annotated[int | None, Query(ge=1, le=2**31 - 1, description="Only ids below this")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = service.HISTORY_PAGE,
) -> dict[str, Any]:
    """The learner's submissions on the problem, newest first; ``next`` loads older ones."""
    problem = problems.get_published(session, slug, user)
    page = service.history(session, user, problem, before_id=before, limit=limit)
    return {
        "submissions": [service.summary_view(s, slug) for s in page.items],
        "next": service.history_next(slug, page, limit),
    }


@router.get("/submissions/{submission_id}/code")
def get_submission_code(submission_id: int, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """The code of one of your submissions, to load it back into the editor."""
    return {"id": submission_id, "code": service.get_own(session, user, submission_id).code}


@router.get("/submissions/{submission_id}")
def get_submission(
    request: Request,
    submission_id: int,
    user: CurrentUser,
    session: SessionDep,
    waiter: WaiterDep,
    settings: SettingsDep,
    wait: Annotated[bool, Query(description="block until the verdict, at most `timeout` seconds")] = False,
    timeout: Annotated[float | None, Query(gt=0, le=120)] = None,
) -> Any:
    """The learner's submission; with ``wait``, answered when its verdict is recorded.

    The wait happens on the event loop once the route has returned (:class:`WaitingResponse`), so
    a waiting page holds neither a worker thread nor the request's database connection.
    """
    since = waiter.mark()  # before the read: a verdict it does not show is notified after this
    now = utcnow()
    submission = service.get_own(session, user, submission_id)
    problem = service.problem_of(session, submission)
    slug = problem.slug
    if not wait or submission.status == FINISHED:
        return service.page_view(session, user, submission, problem, now)
    seconds = min(timeout or settings.wait_timeout_s, settings.wait_timeout_s)
    db = get_database(request)
    gate = gate_for(session, user, submission, problem, now)

    def read() -> dict[str, Any]:
        with db.sessionmaker() as fresh:
            row = service.get_own(fresh, user, submission_id)
            return service.page_view(fresh, user, row, service.problem_of(fresh, row), utcnow())

    def handed(finished: Submission) -> dict[str, Any] | None:
        return gate.view(finished, slug).page_json() if gate.covers(finished, slug) else None

    async def produce() -> dict[str, Any]:
        return await wait_for(
            waiter, submission_id, read, lambda view: view["status"] == FINISHED, seconds, since=since,
            view=handed,
        )  # fmt: skip

    return WaitingResponse(produce)
