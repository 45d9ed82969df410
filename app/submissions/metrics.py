"""``/metrics`` of a web process, and its figures when the judge is embedded.

Which judge a process uses is chosen in ``scaleout.judging_setup``; the runner workers' figures
are ``scaleout.sources``'; this module only observes.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response

from app.kit.db import Database
from app.kit.errors import Forbidden
from app.kit.metrics import CONTENT_TYPE, Sources, Stats, build_registry, render
from app.kit.runner import JudgeRunner
from app.submissions import repository
from app.submissions.models import QUEUED

router = APIRouter(tags=["health"])


def unfinished_counts(db: Database) -> dict[str, int]:
    with db.sessionmaker() as session:
        return repository.unfinished_counts(session)


class EmbeddedSources:
    def __init__(self, db: Database, runner: JudgeRunner) -> None:
        self.db = db
        self.runner = runner

    def queue_depth(self) -> Mapping[str, int]:
        return {"judge": unfinished_counts(self.db)[QUEUED]}

    def submissions_by_status(self) -> Mapping[str, int]:
        return unfinished_counts(self.db)

    def sandbox_pool(self) -> Mapping[str, int]:
        stats: Callable[[], dict[str, int]] | None = getattr(self.runner, "stats", None)
        raw = stats() if stats is not None else {}
        return {
            "workers": 1,
            "slots": int(raw.get("slots", 0)),
            "busy": int(raw.get("busy", 0)),
            "warm": int(raw.get("warm_zygotes", 0)),
        }


def install_metrics(app: FastAPI, stats: Stats, sources: Sources) -> None:
    """Serve ``/metrics`` for this app from the judging setup's figures."""
    app.state.metrics_registry = build_registry(stats, sources)
    app.state.metrics_stats = stats
    app.include_router(router)


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """Prometheus text format. With TORCHDRILL_METRICS_TOKEN set, a bearer token is required."""
    token: str | None = getattr(request.app.state.settings, "metrics_token", None)
    if token:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given, token):
            raise Forbidden("A metrics token is required.")
    return Response(render(request.app.state.metrics_registry), media_type=CONTENT_TYPE)
