"""Prometheus metrics for judging, shared by every process that takes part in it.

With the embedded judge everything happens in the web process and :class:`LocalStats` keeps the
counters in memory. Scaled out, verdicts are recorded by the recorder process and sandboxes live in
runner containers, so the counters live in Redis (:class:`RedisStats`) and the web's ``/metrics``
reads them there: one scrape target shows the whole judge. Figures that already exist elsewhere
(queue length, submissions by status, sandbox pool) are read when scraped, never duplicated.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

import redis
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

# Seconds. Warm judging takes ~50 ms; queueing under load and time limits reach tens of seconds.
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
HISTOGRAMS = ("latency", "run")  # created -> verdict recorded; time inside the runner
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Stats(Protocol):
    def verdict(self, verdict: str, latency_s: float, run_s: float, cause: str = "") -> None:
        """A verdict was recorded now (exactly once per submission); ``cause`` of an internal_error."""
        ...

    def incr(self, event: str, amount: int = 1) -> None:
        """Count an event: ``duplicate`` results ignored, ``rejected`` results, ``redispatched`` jobs."""
        ...

    def snapshot(self) -> dict[str, dict[str, float]]:
        """``verdicts``, ``events``, ``internal_errors`` (by cause) and histogram counters."""
        ...


def _bucket_keys(value: float) -> list[str]:
    return [repr(b) for b in LATENCY_BUCKETS if value <= b] + ["+Inf"]


class LocalStats:
    """Counters in this process's memory (the embedded default)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, dict[str, float]] = {}

    def _add(self, group: str, key: str, amount: float) -> None:
        bucket = self._data.setdefault(group, {})
        bucket[key] = bucket.get(key, 0.0) + amount

    def verdict(self, verdict: str, latency_s: float, run_s: float, cause: str = "") -> None:
        with self._lock:
            self._add("verdicts", verdict, 1)
            if verdict == "internal_error":
                self._add("internal_errors", cause or "unknown", 1)
            for name, value in (("latency", latency_s), ("run", run_s)):
                for key in _bucket_keys(value):
                    self._add(name, key, 1)
                self._add(name, "sum", value)
                self._add(name, "count", 1)

    def incr(self, event: str, amount: int = 1) -> None:
        with self._lock:
            self._add("events", event, amount)

    def snapshot(self) -> dict[str, dict[str, float]]:
        with self._lock:
            return {group: dict(values) for group, values in self._data.items()}


class RedisStats:
    """Counters in Redis hashes, so the recorder writes what the web's ``/metrics`` reads."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        """``prefix``: the deployment's ``<namespace>:metrics:`` (``Settings.wire``)."""
        self.client = client
        self.prefix = prefix

    def verdict(self, verdict: str, latency_s: float, run_s: float, cause: str = "") -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.hincrby(self.prefix + "verdicts", verdict, 1)
        if verdict == "internal_error":
            pipe.hincrby(self.prefix + "internal_errors", cause or "unknown", 1)
        for name, value in (("latency", latency_s), ("run", run_s)):
            for key in _bucket_keys(value):
                pipe.hincrby(self.prefix + name, key, 1)
            pipe.hincrbyfloat(self.prefix + name, "sum", value)
            pipe.hincrby(self.prefix + name, "count", 1)
        pipe.execute()

    def incr(self, event: str, amount: int = 1) -> None:
        self.client.hincrby(self.prefix + "events", event, amount)

    def snapshot(self) -> dict[str, dict[str, float]]:
        groups = ("verdicts", "events", "internal_errors", *HISTOGRAMS)
        pipe = self.client.pipeline(transaction=False)
        for group in groups:
            pipe.hgetall(self.prefix + group)
        out: dict[str, dict[str, float]] = {}
        for group, raw in zip(groups, pipe.execute(), strict=True):
            out[group] = {_text(k): float(_text(v)) for k, v in raw.items()}
        return out


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Sources(Protocol):
    """What the judge looks like right now, read at scrape time."""

    def queue_depth(self) -> Mapping[str, int]: ...

    def submissions_by_status(self) -> Mapping[str, int]: ...

    def sandbox_pool(self) -> Mapping[str, int]:
        """``workers``, ``slots``, ``busy``, ``warm``."""
        ...


class JudgeCollector(Collector):
    def __init__(self, stats: Stats, sources: Sources) -> None:
        self.stats = stats
        self.sources = sources

    def collect(self) -> Iterable[Metric]:
        yield from _safe(self._queue)
        yield from _safe(self._statuses)
        yield from _safe(self._pool)
        yield from _safe(self._counters)

    def _queue(self) -> Iterable[Metric]:
        depth = GaugeMetricFamily(
            "torchdrill_queue_depth", "Jobs waiting in a queue, not yet taken by a worker", labels=["queue"]
        )
        for queue, value in sorted(self.sources.queue_depth().items()):
            depth.add_metric([queue], value)
        yield depth

    def _statuses(self) -> Iterable[Metric]:
        gauge = GaugeMetricFamily(
            "torchdrill_submissions", "Submissions by status (database)", labels=["status"]
        )
        for status, value in sorted(self.sources.submissions_by_status().items()):
            gauge.add_metric([status], value)
        yield gauge

    def _pool(self) -> Iterable[Metric]:
        pool = self.sources.sandbox_pool()
        yield GaugeMetricFamily("torchdrill_runner_workers", "Runner processes alive", value=pool["workers"])
        yield GaugeMetricFamily(
            "torchdrill_sandbox_slots", "Sandbox slots (jobs that can run at once)", value=pool["slots"]
        )
        yield GaugeMetricFamily("torchdrill_sandbox_busy", "Sandbox slots running a job", value=pool["busy"])
        yield GaugeMetricFamily("torchdrill_sandbox_warm", "Warm sandbox zygotes", value=pool["warm"])

    def _counters(self) -> Iterable[Metric]:
        snap = self.stats.snapshot()
        verdicts = CounterMetricFamily(
            "torchdrill_submissions_judged", "Verdicts recorded, by verdict", labels=["verdict"]
        )
        for verdict, value in sorted(snap.get("verdicts", {}).items()):
            verdicts.add_metric([verdict], value)
        yield verdicts
        internal = CounterMetricFamily(
            "torchdrill_internal_errors",
            "internal_error verdicts (the platform failed, not the learner), by cause",
            labels=["cause"],
        )
        for cause, value in sorted(snap.get("internal_errors", {}).items()):
            internal.add_metric([cause], value)
        yield internal
        events = CounterMetricFamily(
            "torchdrill_judge_events",
            "duplicate: a second verdict ignored; rejected: a result with a bad token; "
            "redispatched: a job published again by the sweeper; stuck: ended as internal_error",
            labels=["event"],
        )
        for event, value in sorted(snap.get("events", {}).items()):
            events.add_metric([event], value)
        yield events
        docs = {
            "latency": ("torchdrill_judge_latency_seconds", "From submission to recorded verdict"),
            "run": ("torchdrill_judge_run_seconds", "Time the runner spent judging one job"),
        }
        for name in HISTOGRAMS:
            values = snap.get(name, {})
            metric, doc = docs[name]
            buckets = [(repr(b), values.get(repr(b), 0.0)) for b in LATENCY_BUCKETS]
            buckets.append(("+Inf", values.get("+Inf", 0.0)))
            yield HistogramMetricFamily(metric, doc, buckets=buckets, sum_value=values.get("sum", 0.0))


def _safe(produce: Callable[[], Iterable[Metric]]) -> Iterable[Metric]:
    """A source that is down (Redis restarting) drops its metrics from this scrape, not the scrape."""
    try:
        return list(produce())
    except Exception:
        return []


def build_registry(stats: Stats, sources: Sources) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(JudgeCollector(stats, sources))
    return registry


def render(registry: CollectorRegistry) -> bytes:
    return generate_latest(registry)
