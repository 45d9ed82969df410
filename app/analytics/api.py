"""``/api/v1/courses/{id}/assignments/{aid}/analytics`` (JSON, scope ``teach``): the pages' figures."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query

from app.analytics import service
from app.analytics.views import AssignmentAnalytics, ProblemAnalytics
from app.courses.deps import InstructorAssignment
from app.kit.web import SessionDep

router = APIRouter(prefix="/api/v1/courses", tags=["courses"])
Slug = Annotated[str, Path(max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$", description="the problem's slug")]
Lists = Annotated[
    Literal["all"] | None,
    Query(
        description="`all`: every stuck and not-started student (else the first 50; the totals say how many)"
    ),
]


def _shown(lists: str | None) -> int | None:
    return None if lists == "all" else service.LIST_SHOWN


ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not logged in / no valid token"},
    403: {"description": "A token without the `teach` scope"},
    404: {"description": "No such course or assignment, or you do not teach it (students too)"},
}


@router.get(
    "/{course_id}/assignments/{assignment_id}/analytics",
    responses=ERRORS,
    response_model=AssignmentAnalytics,
    summary="An assignment's analytics: progress, failures, who has not started, who is stuck (instructors)",
)
def get_analytics(
    taught: InstructorAssignment, session: SessionDep, lists: Lists = None
) -> AssignmentAnalytics:
    return service.assignment_analytics(session, taught.course, taught.assignment, _shown(lists))


@router.get(
    "/{course_id}/assignments/{assignment_id}/analytics/{slug}",
    responses=ERRORS,
    response_model=ProblemAnalytics,
    summary="One assignment problem's analytics: failing cases and rules, kinds over time (instructors)",
)
def get_problem_analytics(
    taught: InstructorAssignment, slug: Slug, session: SessionDep, lists: Lists = None
) -> ProblemAnalytics:
    return service.problem_analytics(session, taught.course, taught.assignment, slug, _shown(lists))
