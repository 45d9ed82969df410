"""What every ``/api/v1/courses`` router shares: the root, the errors it documents, the page size."""

from __future__ import annotations

from typing import Any

from app.kit.web import SettingsDep

ROOT = "/api/v1/courses"

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not logged in / no valid token"},
    403: {"description": "Not allowed (a student creating a course; a token without the scope)"},
    404: {"description": "No such course, or you are not in it"},
    422: {"description": "Invalid fields (`invalid_input`)"},
}


def page_size(limit: int | None, settings: SettingsDep) -> int:
    """A list's page: ``limit``, or the API's default, at most 100."""
    return min(limit or settings.api_page_size, 100)
