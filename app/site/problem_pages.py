"""Problem list and problem pages (HTML)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from app.accounts.deps import OptionalUser
from app.billing import service as billing
from app.courses import problem_context
from app.discussion import service as discussion
from app.drafts import service as drafts
from app.hints import service as hints
from app.kit.db import utcnow
from app.kit.errors import InvalidInput
from app.kit.markdown import highlight_code, render_markdown
from app.kit.runner import runtime_info
from app.kit.web import RunnerDep, SessionDep, SettingsDep, render
from app.problems import service
from app.submissions import service as submissions
from app.tracks import service as tracks

router = APIRouter(tags=["problems"])

FilterParam = Annotated[str | None, Query(max_length=200)]


@router.get("/")
@router.get("/problems")
def problem_list(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    difficulty: FilterParam = None,
    category: FilterParam = None,
    tag: FilterParam = None,
    q: FilterParam = None,
    status: FilterParam = None,
) -> Any:
    notice = None
    try:
        filters = service.ProblemFilters.parse(difficulty, category, tag, q)
    except InvalidInput as exc:  # keep the page usable: show why, list everything else
        notice = exc.detail
        filters = service.ProblemFilters.parse(None, category, tag, (q or "")[: service.MAX_SEARCH])
    status = status if status in service.STATUS_FILTERS and user is not None else None
    problems = service.list_problems(session, filters, user, utcnow(), status=status)
    return render(
        request,
        "problems/list.html",
        {
            "problems": problems,
            "filters": filters,
            "status": status,
            "choices": service.filter_choices(session),
            "notice": notice,
            # A newcomer starts on the first track ("Start here"), not on the list's first row.
            "start_here": None if filters.active or status else tracks.start_here(session, user, utcnow()),
        },
        status_code=400 if notice else 200,
    )


@router.get("/problems/{slug}")
def problem_page(
    request: Request,
    slug: str,
    session: SessionDep,
    user: OptionalUser,
    runner: RunnerDep,
    settings: SettingsDep,
    assignment: Annotated[str | None, Query()] = None,  # opened from an assignment: its deadline, a way back
) -> Any:
    now = utcnow()
    page = service.problem_page(session, slug, user, now)
    problem = service.get_published(session, slug, user, now)
    hint_view = hints.hints_for(session, slug, user, now)
    history = []
    older = None  # the URL of the next (older) page of the history, for "Older submissions"
    initial_code = page.starter
    reference = None
    if user is not None:
        first = submissions.history(session, user, problem)
        recent = first.items
        history = [submissions.summary_view(s) for s in recent]
        older = submissions.history_next(slug, first)
        if page.starter is not None:  # pick up where the learner left off, on any device
            saved = drafts.saved_code(session, user, problem)
            if saved is not None:
                initial_code = saved
            elif recent:
                initial_code = recent[0].code
        solved = submissions.has_accepted(session, user, problem)
        reference = service.reference_solution(problem, page.version, user, now, solved)
    return render(
        request,
        "problems/detail.html",
        {
            "page": page,
            "history": history,
            "history_older": older,
            "initial_code": initial_code,
            "reference_html": highlight_code(reference) if reference is not None else None,
            "runtime": runtime_info(runner),
            "billing_on": billing.enabled(settings),
            "track_nav": tracks.neighbours(session, problem, user, now),
            "hints": hint_view,
            "hints_html": [render_markdown(h) for h in hint_view.revealed],
            # "Run with my input" (the custom input panel) is offered when the problem has an example.
            "example_input": service.version_files(page.card.slug, page.version).example_input,
            # The Discussion link's count, only where the viewer may read the threads (the gate).
            "discussion_count": discussion.count_threads(session, problem)
            if service.can_work_on(problem, user, now)
            else None,
            **problem_context.page_context(session, assignment, problem, user, now),
        },
    )
