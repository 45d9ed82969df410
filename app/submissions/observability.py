"""Which judge a web process uses (embedded or runner workers), and ``/metrics`` about it.

Where the figures come from depends on the dispatcher (see :mod:`app.kit.metrics`): embedded, the
queue is the database's queued rows and the pool is this process's runner; scaled out, the queue is
the broker's list and the pool is the sum of the runner workers' heartbeats.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import redis
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response

from app.kit.db import Database
from app.kit.errors import Forbidden
from app.kit.logging import submission_context
from app.kit.metrics import CONTENT_TYPE, LocalStats, RedisStats, Sources, Stats, build_registry, render
from app.kit.runner import JudgeRunner, default_runner
from app.kit.settings import Settings
from app.submissions import repository
from app.submissions.dispatch import Dispatcher, InProcessDispatcher, ResultWaiter
from app.submissions.judging import judge_submission
from app.submissions.models import QUEUED

log = logging.getLogger(__name__)
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


class BrokerSources:
    def __init__(self, db: Database, client: redis.Redis) -> None:
        self.db = db
        self.client = client

    def queue_depth(self) -> Mapping[str, int]:
        from app.submissions.celery_dispatch import queue_depth

        return queue_depth(self.client)

    def submissions_by_status(self) -> Mapping[str, int]:
        return unfinished_counts(self.db)

    def sandbox_pool(self) -> Mapping[str, int]:
        from app.submissions.celery_dispatch import runner_pool

        return runner_pool(self.client)


@dataclass
class Judging:
    """How this web process gets submissions judged, and where that is observed."""

    dispatcher: Dispatcher
    runner: JudgeRunner
    stats: Stats
    sources: Sources


def setup_judging(
    settings: Settings,
    db: Database,
    waiter: ResultWaiter,
    *,
    runner: JudgeRunner | None = None,
    dispatcher: Dispatcher | None = None,
) -> Judging:
    """Runner workers behind Celery when ``broker_url`` is set, else the embedded judge threads."""
    if settings.broker_url and dispatcher is None:
        from app.submissions.celery_dispatch import CeleryDispatcher, RemoteRunner

        remote = CeleryDispatcher(db, settings, waiter)
        return Judging(
            remote,
            runner or RemoteRunner(remote.client, remote.celery, settings.broker_url or ""),
            RedisStats(remote.client),
            BrokerSources(db, remote.client),
        )
    judge_runner = runner or default_runner()
    stats = LocalStats()
    if dispatcher is None:
        dispatcher = InProcessDispatcher(
            embedded_judge(db, judge_runner, waiter, stats), workers=settings.judge_workers
        )
    return Judging(dispatcher, judge_runner, stats, EmbeddedSources(db, judge_runner))


def install_metrics(app: FastAPI, judging: Judging) -> None:
    """Serve ``/metrics`` for this app from the judging setup's figures."""
    app.state.metrics_registry = build_registry(judging.stats, judging.sources)
    app.state.metrics_stats = judging.stats
    app.include_router(router)


def observe_verdict(db: Database, stats: Stats, submission_id: int) -> None:
    with db.sessionmaker() as session:
        submission = repository.get(session, submission_id)
    if submission is None or submission.finished_at is None:
        return
    latency = max(0.0, (submission.finished_at - submission.created_at).total_seconds())
    stats.verdict(submission.verdict or "unknown", latency, (submission.time_ms or 0.0) / 1000)
    log.info("verdict recorded: %s, %.2f s after submission", submission.verdict, latency)


def embedded_judge(
    db: Database, runner: JudgeRunner, waiter: ResultWaiter, stats: Stats
) -> Callable[[int], None]:
    """The in-process dispatcher's judge function: logs carry the id, verdicts are counted."""

    def judge(submission_id: int) -> None:
        with submission_context(submission_id):
            if judge_submission(db, runner, submission_id, waiter.notify):
                observe_verdict(db, stats, submission_id)

    return judge


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """Prometheus text format. With TORCHDRILL_METRICS_TOKEN set, a bearer token is required."""
    token: str | None = getattr(request.app.state.settings, "metrics_token", None)
    if token:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given, token):
            raise Forbidden("A metrics token is required.")
    return Response(render(request.app.state.metrics_registry), media_type=CONTENT_TYPE)
