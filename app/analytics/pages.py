"""``/courses/{id}/assignments/{aid}/analytics`` (HTML): an assignment's analytics, and one problem's.

Instructors of the course only: the courses' rule (``app.courses.deps.InstructorAssignmentPage``)
makes them 404 to its students and to everybody else, like every instructor page.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request

from app.analytics import charts, rules, service
from app.courses.deps import InstructorAssignmentPage, TaughtAssignment
from app.kit.web import SessionDep, render

router = APIRouter(prefix="/courses", tags=["course pages"])
Slug = Annotated[str, Path(max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$")]
# ``?lists=all``: every stuck and not-started student (else the first ``service.LIST_SHOWN``).
Lists = Annotated[Literal["all"] | None, Query()]


def _shown(lists: str | None) -> int | None:
    return None if lists == "all" else service.LIST_SHOWN


def _context(taught: TaughtAssignment) -> dict[str, Any]:
    return {"course": taught.course, "assignment": taught.assignment, "kind_names": rules.KINDS,
            "colours": charts.KIND_COLOURS, "rules": rules}  # fmt: skip


@router.get("/{course_id}/assignments/{assignment_id}/analytics")
def analytics_page(
    request: Request, taught: InstructorAssignmentPage, session: SessionDep, lists: Lists = None
) -> Any:
    context = _context(taught)
    view = service.assignment_analytics(session, context["course"], context["assignment"], _shown(lists))
    context |= {
        "view": view,
        "progress_chart": charts.progress_bars(view.problems, view.students),
        "kinds_chart": charts.kinds_over_time(view.kinds_over_time),
    }
    return render(request, "courses/analytics.html", context)


@router.get("/{course_id}/assignments/{assignment_id}/analytics/{slug}")
def problem_analytics_page(
    request: Request, taught: InstructorAssignmentPage, slug: Slug, session: SessionDep, lists: Lists = None
) -> Any:
    context = _context(taught)
    view = service.problem_analytics(session, context["course"], context["assignment"], slug, _shown(lists))
    context |= {
        "view": view,
        "cases_chart": charts.failure_bars(view.problem.cases, view.students),
        "rules_chart": charts.failure_bars(view.problem.rules, view.students),
        "kinds_chart": charts.kinds_over_time(view.kinds_over_time),
    }
    return render(request, "courses/analytics_problem.html", context)
