"""JSON shapes of courses and assignments, shared by the API and the page scripts."""

from __future__ import annotations

from typing import Any

from app.courses import assignments as assignments_mod
from app.courses.models import Assignment, Course


def course_view(course: Course, role: str) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": course.id,
        "title": course.title,
        "term": course.term,
        "timezone": course.timezone,
        "ends_at": course.ends_at.isoformat() if course.ends_at else None,
        "role": role,
        "url": f"/courses/{course.id}",
        "lti_context_id": course.lti_context_id,
    }
    if role == "instructor":
        view["invitation_only"] = course.invitation_only
        view["join_code"] = course.join_code
        view["join_url"] = f"/courses/join?code={course.join_code}"
        view["join_code_expires_at"] = (
            course.join_code_expires_at.isoformat() if course.join_code_expires_at else None
        )
    return view


def assignment_view(assignment: Assignment, slugs: list[str]) -> dict[str, Any]:
    return {
        "id": assignment.id,
        "course_id": assignment.course_id,
        "title": assignment.title,
        "problems": slugs,
        "release_at": assignment.release_at.isoformat(),
        "due_at": assignment.due_at.isoformat(),
        "late": assignments_mod.late_view(assignment),
        "after_last": assignment.after_last,
        "lti_line_item_id": assignment.lti_line_item_id,
        "url": f"/courses/{assignment.course_id}/assignments/{assignment.id}",
    }
