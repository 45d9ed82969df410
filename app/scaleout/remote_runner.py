"""The runner workers as the web sees them: their heartbeats, the queues, and ad-hoc requests.

:class:`RemoteRunner` is the web's :class:`~app.kit.runner.JudgeRunner` when judging is scaled out:
authoring's validation and expected values go to a runner worker through the broker and the
answer comes back on a reply key.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import redis
from celery import Celery

from runner.engine import ExpectationError
from runner.format.problem import ProblemFiles
from runner.jobs import Expectations, Job, JudgeResult, Mode
from runner.transport.names import Wire
from runner.transport.wire import ADHOC_TASK, HEARTBEAT_TTL_S, JUDGE_QUEUE, RESULTS_QUEUE, direct

ADHOC_SLACK_S = 60.0  # queueing behind submissions, and a cold runner


def runner_heartbeats(client: redis.Redis, wire: Wire) -> list[dict[str, Any]]:
    """Fresh heartbeats of runner workers (stale ones, left by killed workers, are dropped)."""
    now = time.time()
    beats = []
    for name, raw in client.hgetall(wire.runners_key).items():
        beat = json.loads(raw)
        if now - float(beat.get("ts", 0)) < HEARTBEAT_TTL_S:
            beats.append(beat)
        else:
            client.hdel(wire.runners_key, name)
    return beats


def runner_pool(client: redis.Redis, wire: Wire) -> dict[str, int]:
    beats = runner_heartbeats(client, wire)
    return {
        "workers": len(beats),
        "slots": sum(int(b.get("slots", 0)) for b in beats),
        "busy": sum(int(b.get("busy", 0)) for b in beats),
        "warm": sum(int(b.get("warm_zygotes", 0)) for b in beats),
    }


def queue_depth(client: redis.Redis, wire: Wire) -> dict[str, int]:
    pipe = client.pipeline(transaction=False)
    for queue in (JUDGE_QUEUE, RESULTS_QUEUE):
        pipe.llen(wire.queue_key(queue))
    return dict(zip((JUDGE_QUEUE, RESULTS_QUEUE), pipe.execute(), strict=True))


class RemoteRunner:
    """The web's :class:`~app.kit.runner.JudgeRunner` when judging happens in runner workers."""

    def __init__(
        self, client: redis.Redis, wire: Wire, celery: Celery | None = None, broker_url: str = ""
    ) -> None:
        self.client = client
        self.wire = wire
        self.celery = celery
        # Blocking reads outlast the shared client's socket timeout: a client of their own.
        self._replies = redis.Redis.from_url(broker_url, socket_connect_timeout=5) if broker_url else client
        self._info: dict[str, str] = {}
        self._info_at = 0.0

    def ready(self) -> bool:
        """The broker is reachable: submissions are accepted and wait for a runner."""
        return bool(self.client.ping())

    def runtime_info(self) -> dict[str, str]:
        if time.monotonic() - self._info_at > 10:
            beats = [b for b in runner_heartbeats(self.client, self.wire) if b.get("runtime")]
            self._info = dict(beats[0]["runtime"]) if beats else {}
            self._info_at = time.monotonic()
        return dict(self._info)

    def _ask(self, kind: str, payload: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send an ad-hoc request to a runner worker and block until its answer (or time out)."""
        if self.celery is None:
            raise RuntimeError("no broker connection for ad-hoc runner requests")
        reply_key = self.wire.reply_key(uuid.uuid4().hex)
        self.celery.send_task(
            ADHOC_TASK,
            kwargs={"kind": kind, "payload": payload, "reply_key": reply_key},
            expires=timeout_s,
            **direct(JUDGE_QUEUE),
        )
        answer = self._replies.blpop([reply_key], timeout=max(1, int(timeout_s)))
        if answer is None:
            raise RuntimeError(f"no runner worker answered within {timeout_s:.0f} s; is a runner running?")
        return dict(json.loads(answer[1]))

    def judge(self, job: Job) -> JudgeResult:
        """Judge outside the submission flow (authoring's validation) through a runner worker."""
        reply = self._ask("judge", job.to_dict(), job.limits.time_s + ADHOC_SLACK_S)
        if "result" not in reply:
            return JudgeResult.internal_error(str(reply.get("error", "")), "runner_reply")
        return JudgeResult.from_dict(reply["result"])

    def compute_expectations(self, problem: ProblemFiles) -> Expectations:
        reply = self._ask(
            "expectations",
            {"slug": problem.slug, "files": problem.files()},
            problem.limits.time_s + ADHOC_SLACK_S,
        )
        if "expectations" not in reply:
            if reply.get("kind") == "expectation":
                raise ExpectationError(reply.get("error", "the reference failed"))
            raise RuntimeError(reply.get("error", "the runner failed"))
        return Expectations.from_dict(reply["expectations"])

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job:
        return problem.job(expectations, code, mode, job_id)
