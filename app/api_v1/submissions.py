"""``/api/v1/submissions``: submit (optionally waiting for the verdict), fetch and list your own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any
from urllib.parse import urlencode

import anyio
from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.api_v1.deps import ApiToken, ApiUser, limit_body, needs
from app.api_v1.schemas import SubmissionIn, error_responses, model_response
from app.kit.db import Database, utcnow
from app.kit.logging import tag_request
from app.kit.web import SessionDep, SettingsDep, get_database
from app.problems import service as problems
from app.submissions import repository as submissions_repository
from app.submissions import service
from app.submissions.deps import DispatcherDep, WaiterDep
from app.submissions.dispatch import ResultWaiter
from app.submissions.gate import ViewGate, gate_for
from app.submissions.models import FINISHED, Submission
from app.submissions.views import SubmissionList, SubmissionSummary, SubmissionView
from app.submissions.waiting import WaitingResponse, wait_for
from runner.verdict import Verdict

router = APIRouter(prefix="/submissions", tags=["submissions"])

SubmissionId = Annotated[int, Path(ge=1, le=2**31 - 1)]
IDEMPOTENCY_KEY = r"^[A-Za-z0-9._:-]{1,100}$"


def v1_view(gate: ViewGate, submission: Submission, slug: str) -> dict[str, Any]:
    """The one submission view behind the caller's gate, as the REST API serialises it (``tests``,
    the API's own URL)."""
    return gate.view(submission, slug, url=f"/api/v1/submissions/{submission.id}").api_json()


def read_view(session: Session, user: User, submission_id: int) -> tuple[dict[str, Any], str, ViewGate]:
    """One of the caller's submissions as the API shows it, with its slug and the caller's gate."""
    submission = service.get_own(session, user, submission_id)
    problem = service.problem_of(session, submission)
    gate = gate_for(session, user, submission, problem, utcnow())
    return v1_view(gate, submission, problem.slug), problem.slug, gate


def submission_response(
    produce: Callable[[], Awaitable[dict[str, Any]]], headers: dict[str, str]
) -> WaitingResponse:
    """A waiting answer, sent once the request's transaction has committed (and the job was
    dispatched): the body waits on the event loop (no thread held) until the judge records the
    verdict or the timeout passes. 200 when the verdict is known, 202 while queued or running.
    """
    return WaitingResponse(produce, status_of, headers)


def status_of(view: dict[str, Any]) -> int:
    """200 once the verdict is known, 202 while the submission is queued or running."""
    return 200 if view["status"] == FINISHED else 202


def _produce(
    db: Database,
    waiter: ResultWaiter,
    submission_id: int,
    slug: str,
    wait_s: float,
    gate: ViewGate,
    user: User,
    since: int | None = None,
) -> Callable[[], Awaitable[dict[str, Any]]]:
    """The waiting answer's body: built from the row the judge recorded, or read at the timeout.

    ``since``: a :meth:`ResultWaiter.mark` taken while the submission was known unfinished. ``gate``:
    the caller's, taken with the first read; a finished row it does not cover (a failed public case
    whose example input was not looked up) is read again, through the gate, in a fresh session.
    """

    def read() -> dict[str, Any]:
        # After the route's slot was given back: one hop, a spare connection (app/kit/db.py).
        with db.sessionmaker() as fresh:
            submission = submissions_repository.get(fresh, submission_id)
            assert submission is not None  # committed before the response is sent
            problem = service.problem_of(fresh, submission)
            return v1_view(gate_for(fresh, user, submission, problem, utcnow()), submission, slug)

    def handed(finished: Submission) -> dict[str, Any] | None:
        return v1_view(gate, finished, slug) if gate.covers(finished, slug) else None

    async def produce() -> dict[str, Any]:
        return await wait_for(
            waiter, submission_id, read, lambda view: view["status"] == FINISHED, wait_s, since=since,
            view=handed,
        )  # fmt: skip

    return produce


@router.post(
    "",
    status_code=202,
    response_model=SubmissionView,
    responses=model_response(200, SubmissionView, "Finished (with `wait=true`, or a replay)")
    | error_responses(401, 403, 404, 409, 413, 422, 429),
    dependencies=[Depends(limit_body)],
)
async def create_submission(
    request: Request,
    body: SubmissionIn,
    token: ApiToken,
    settings: SettingsDep,
    dispatcher: DispatcherDep,
    waiter: WaiterDep,
    wait: Annotated[
        bool, Query(description="Answer when the verdict is known (bounded by `timeout`)")
    ] = False,
    timeout: Annotated[float | None, Query(gt=0, le=120, description="Seconds to wait at most")] = None,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            pattern=IDEMPOTENCY_KEY,
            description="Retrying with the same key returns the first submission instead of a new one",
        ),
    ] = None,
) -> Any:
    """Judge `code` as the problem's solution.py: `run` (public cases), `submit` (every case) or
    `custom` (your `input`: the reference's output for it and yours, compared; 422 on bad input or
    a problem without custom input).

    Answers 202 with the queued submission; with `wait=true`, 200 with the verdict once it is known
    (or 202 with the current state after `timeout` seconds).
    """
    db = get_database(request)

    def store() -> tuple[int, bool, dict[str, Any], ViewGate, User]:
        # The route's whole unit of work in one worker thread: the token's owner (its own short
        # transaction, as every API route's), then one transaction (committed, then the job
        # dispatched, by ``Database.transaction``): one hop instead of a session's five.
        # Its connection is counted in the database slot every route holds (app.kit.web.DatabaseSlot).
        # The view is the submission as this request stored it (or found it, on a replay): a new
        # one is answered ``queued`` with 202 however fast the judge then is.
        user = token.owner("submit")  # 401, 403 without the submit scope, 429
        now = utcnow()
        with db.transaction() as session:
            submission, replayed = service.create_or_replay(
                session,
                dispatcher,
                user,
                body.problem,
                body.code,
                body.mode,
                max_code_bytes=settings.max_code_bytes,
                now=now,
                idempotency_key=idempotency_key,
                custom_input=body.input,
                custom_text=body.input_text,
                per_minute=settings.api_submissions_per_minute,
            )
            # Just through the problem's gate (``create_or_replay``): nothing locked; a new submission
            # has no failed case yet, so no example input is read on the verdict's path.
            gate = (
                gate_for(session, user, submission, service.problem_of(session, submission), now)
                if replayed
                else ViewGate(locked=False)
            )
            return submission.id, replayed, v1_view(gate, submission, body.problem), gate, user

    since = waiter.mark()  # before the insert: any verdict for it is notified after this
    submission_id, replayed, view, gate, user = await anyio.to_thread.run_sync(store)
    tag_request(request.state, submission_id)
    headers = {"Location": f"/api/v1/submissions/{submission_id}"}
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    if not wait or view["status"] == FINISHED:
        return JSONResponse(view, status_code=status_of(view), headers=headers)
    wait_s = min(timeout or settings.wait_timeout_s, settings.wait_timeout_s)
    produce = _produce(
        db, waiter, submission_id, body.problem, wait_s, gate, user, None if replayed else since
    )
    return submission_response(produce, headers)


@router.get(
    "/{submission_id}",
    response_model=SubmissionView,
    responses=model_response(202, SubmissionView, "Still queued or running (after `wait`)")
    | error_responses(401, 403, 404, 422, 429),
    dependencies=[needs("read")],
)
async def get_submission(
    request: Request,
    submission_id: SubmissionId,
    user: ApiUser,
    settings: SettingsDep,
    waiter: WaiterDep,
    wait: Annotated[
        bool, Query(description="Answer when the verdict is known (bounded by `timeout`)")
    ] = False,
    timeout: Annotated[float | None, Query(gt=0, le=120, description="Seconds to wait at most")] = None,
) -> Any:
    """One of the caller's submissions; anybody else's answers 404, exactly like a missing one.

    With `wait=true` the answer comes when the verdict is recorded (woken by the judge, not by
    polling), or after `timeout` seconds with status 202 and the current state.
    """
    db = get_database(request)

    def read() -> tuple[dict[str, Any], str, ViewGate]:
        with db.transaction() as session:  # one hop, one short transaction, in the route's slot
            return read_view(session, user, submission_id)

    since = waiter.mark()  # before the read: a verdict it does not show is notified after this
    view, slug, gate = await anyio.to_thread.run_sync(read)
    if not wait or view["status"] == FINISHED:
        return view
    wait_s = min(timeout or settings.wait_timeout_s, settings.wait_timeout_s)
    return submission_response(_produce(db, waiter, submission_id, slug, wait_s, gate, user, since), {})


@router.get(
    "",
    response_model=SubmissionList,
    responses=error_responses(401, 403, 404, 422, 429),
    dependencies=[needs("read")],
)
def list_submissions(
    user: ApiUser,
    session: SessionDep,
    settings: SettingsDep,
    problem: Annotated[str | None, Query(max_length=80, description="A problem slug")] = None,
    verdict: Annotated[Verdict | None, Query()] = None,
    before: Annotated[
        int | None, Query(ge=1, le=2**31 - 1, description="Only ids below this (paging)")
    ] = None,
    limit: Annotated[int | None, Query(ge=1, le=100)] = None,
) -> SubmissionList:
    """The caller's submissions, newest first; follow `next` for older ones."""
    size = min(limit or settings.api_page_size, 100)
    target = problems.get_published(session, problem, user) if problem else None
    rows = service.list_own(session, user, problem=target, verdict=verdict, before_id=before, limit=size + 1)
    more = len(rows) > size  # one row past the page says whether an older page exists
    rows = rows[:size]
    slugs = {p.id: p.slug for p in problems.problems_by_ids(session, {s.problem_id for s in rows})}
    next_url = None
    if more:
        params = {k: v for k, v in (("problem", problem), ("verdict", verdict)) if v}
        next_url = "/api/v1/submissions?" + urlencode({**params, "before": rows[-1].id, "limit": size})
    items = [
        SubmissionSummary.of(s, slugs.get(s.problem_id, ""), url=f"/api/v1/submissions/{s.id}") for s in rows
    ]
    return SubmissionList(items=items, next=next_url)
