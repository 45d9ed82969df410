"""``/courses/{id}/assignments/{aid}/analytics`` (HTML): an assignment's analytics, and one problem's.

Instructors of the course only: the course's rule (``enrolment.course_for_instructor``) makes
them 404 to its students and to everybody else, like every instructor page.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from app.accounts.deps import CurrentUser
from app.analytics import charts, rules, service
from app.courses import assignments, enrolment
from app.courses.deps import AssignmentId, CourseId
from app.kit.db import utcnow
from app.kit.web import SessionDep, render

router = APIRouter(prefix="/courses", tags=["course pages"])
Slug = Annotated[str, Path(max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$")]


def _context(session: SessionDep, course_id: int, assignment_id: int, user: Any) -> dict[str, Any]:
    course = enrolment.course_for_instructor(session, course_id, user)
    assignment = assignments.assignment_for(session, course, assignment_id, user, utcnow())
    return {"course": course, "assignment": assignment, "kind_names": rules.KINDS,
            "colours": charts.KIND_COLOURS, "rules": rules}  # fmt: skip


@router.get("/{course_id}/assignments/{assignment_id}/analytics")
def analytics_page(
    request: Request, course_id: CourseId, assignment_id: AssignmentId, session: SessionDep, user: CurrentUser
) -> Any:
    context = _context(session, course_id, assignment_id, user)
    view = service.assignment_analytics(session, context["course"], context["assignment"])
    context |= {
        "view": view,
        "progress_chart": charts.progress_bars(view.problems, view.students),
        "kinds_chart": charts.kinds_over_time(view.kinds_over_time),
    }
    return render(request, "courses/analytics.html", context)


@router.get("/{course_id}/assignments/{assignment_id}/analytics/{slug}")
def problem_analytics_page(
    request: Request,
    course_id: CourseId,
    assignment_id: AssignmentId,
    slug: Slug,
    session: SessionDep,
    user: CurrentUser,
) -> Any:
    context = _context(session, course_id, assignment_id, user)
    view = service.problem_analytics(session, context["course"], context["assignment"], slug)
    context |= {
        "view": view,
        "cases_chart": charts.failure_bars(view.problem.cases, view.students),
        "rules_chart": charts.failure_bars(view.problem.rules, view.students),
        "kinds_chart": charts.kinds_over_time(view.kinds_over_time),
    }
    return render(request, "courses/analytics_problem.html", context)
