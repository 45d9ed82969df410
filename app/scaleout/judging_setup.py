"""Which judge a web process uses: runner workers behind Celery, or the embedded judge threads."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from app.kit.db import Database
from app.kit.logging import submission_context
from app.kit.metrics import LocalStats, RedisStats, Sources, Stats
from app.kit.runner import JudgeRunner, default_runner
from app.kit.settings import Settings
from app.scaleout.sources import BrokerSources
from app.submissions.dispatch import Dispatcher, InProcessDispatcher, ResultWaiter
from app.submissions.judging import judge
from app.submissions.metrics import EmbeddedSources
from app.submissions.models import Submission

log = logging.getLogger(__name__)


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
        from app.scaleout.celery_dispatch import CeleryDispatcher
        from app.scaleout.remote_runner import RemoteRunner

        remote = CeleryDispatcher(db, settings, waiter)
        return Judging(
            remote,
            runner or RemoteRunner(remote.client, settings.wire, remote.celery, settings.broker_url or ""),
            RedisStats(remote.client, settings.wire.key("metrics:")),
            BrokerSources(db, remote.client, settings.wire),
        )
    judge_runner = runner or default_runner()
    stats = LocalStats()
    if dispatcher is None:
        dispatcher = InProcessDispatcher(
            embedded_judge(db, judge_runner, waiter, stats), workers=settings.judge_workers
        )
    return Judging(dispatcher, judge_runner, stats, EmbeddedSources(db, judge_runner))


def observe_verdict(stats: Stats, submission: Submission) -> None:
    """Count a verdict just recorded (``submission`` is the finished row ``judge`` returned)."""
    finished_at = submission.finished_at or submission.created_at
    latency = max(0.0, (finished_at - submission.created_at).total_seconds())
    cause = str((submission.runtime or {}).get("internal_error", ""))
    stats.verdict(submission.verdict or "unknown", latency, (submission.time_ms or 0.0) / 1000, cause)
    log.info("verdict recorded: %s, %.2f s after submission", submission.verdict, latency)


def embedded_judge(
    db: Database, runner: JudgeRunner, waiter: ResultWaiter, stats: Stats
) -> Callable[[int], None]:
    """The in-process dispatcher's judge function: logs carry the id, verdicts are counted."""

    def judge_one(submission_id: int) -> None:
        with submission_context(submission_id):
            finished = judge(db, runner, submission_id, waiter.notify)
            if finished is not None:
                observe_verdict(stats, finished)

    return judge_one
