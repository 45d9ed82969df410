"""Everything under ``/api/v1``, in one router for :func:`app.main.create_app` to include."""

from __future__ import annotations

from fastapi import APIRouter

from app.api_v1 import auth, docs, hints, problems, submissions, tracks, version

router = APIRouter()
for part in (auth.router, problems.router, hints.router, tracks.router, submissions.router, version.router):
    router.include_router(part, prefix="/api/v1")
router.include_router(docs.router)
