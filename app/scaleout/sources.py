"""``/metrics``' figures of a web process whose submissions runner workers judge: queues and
workers as the broker holds them (``remote_runner``), submissions by status from the database."""

from __future__ import annotations

from collections.abc import Mapping

import redis

from app.kit.db import Database
from app.scaleout.remote_runner import queue_depth, runner_pool
from app.submissions.metrics import unfinished_counts
from runner.transport.names import Wire


class BrokerSources:
    def __init__(self, db: Database, client: redis.Redis, wire: Wire) -> None:
        self.db = db
        self.client = client
        self.wire = wire

    def queue_depth(self) -> Mapping[str, int]:
        return queue_depth(self.client, self.wire)

    def submissions_by_status(self) -> Mapping[str, int]:
        return unfinished_counts(self.db)

    def sandbox_pool(self) -> Mapping[str, int]:
        return runner_pool(self.client, self.wire)
