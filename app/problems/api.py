"""Read-only JSON views of the problem list (same service as the pages)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.accounts.deps import OptionalUser
from app.kit.db import utcnow
from app.kit.web import SessionDep
from app.problems import service

router = APIRouter(prefix="/api", tags=["problems"])

FilterParam = Annotated[str | None, Query(max_length=200)]


@router.get("/problems")
def list_problems(
    session: SessionDep,
    user: OptionalUser,
    difficulty: FilterParam = None,
    category: FilterParam = None,
    tag: FilterParam = None,
    q: FilterParam = None,
) -> dict[str, Any]:
    filters = service.ProblemFilters.parse(difficulty, category, tag, q)
    return {"problems": [asdict(c) for c in service.list_problems(session, filters, user, utcnow())]}
