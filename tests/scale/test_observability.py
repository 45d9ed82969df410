"""``/metrics`` and structured logs, without a broker (the embedded judge)."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.kit.db import Database, upgrade_database
from app.kit.logging import JsonFormatter, SubmissionFilter, submission_context
from app.kit.metrics import LocalStats, build_registry, render
from app.kit.settings import Settings
from app.main import create_app


class FakeRunner:
    def ready(self) -> bool:
        return True

    def runtime_info(self) -> dict[str, str]:
        return {"python": "3.11", "torch": "2"}

    def stats(self) -> dict[str, int]:
        return {"slots": 4, "busy": 1, "warm_zygotes": 1}

    def judge(self, job: Any) -> Any:
        raise AssertionError("not called")

    def compute_expectations(self, problem: Any) -> Any:
        raise AssertionError("not called")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Database:
    url = f"sqlite:///{tmp_path_factory.mktemp('obs') / 'torchdrill.db'}"
    upgrade_database(url)
    return Database(url)


def make_client(database: Database, **settings: Any) -> TestClient:
    config = Settings(env="development", database_url=database.url, secret_key="s" * 40,
                      public_url="http://testserver", **settings)  # fmt: skip
    return TestClient(create_app(config, database=database, runner=FakeRunner()))


def test_metrics_in_prometheus_format(database: Database) -> None:
    client = make_client(database)
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    body = response.text
    assert 'torchdrill_queue_depth{queue="judge"} 0.0' in body
    assert "torchdrill_sandbox_slots 4.0" in body and "torchdrill_sandbox_busy 1.0" in body
    assert "# TYPE torchdrill_judge_latency_seconds histogram" in body
    assert "# TYPE torchdrill_submissions_judged_total counter" in body


def test_metrics_token_when_configured(database: Database) -> None:
    client = make_client(database, metrics_token="t" * 32)
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", headers={"Authorization": "Bearer " + "t" * 32}).status_code == 200


def test_verdicts_and_latency_histogram_are_cumulative() -> None:
    stats = LocalStats()
    stats.verdict("accepted", 0.3, 0.04)
    stats.verdict("wrong_answer", 12.0, 0.05)
    stats.incr("duplicate")

    class Sources:
        def queue_depth(self) -> dict[str, int]:
            return {"judge": 3}

        def submissions_by_status(self) -> dict[str, int]:
            return {"queued": 3, "running": 1}

        def sandbox_pool(self) -> dict[str, int]:
            return {"workers": 2, "slots": 4, "busy": 4, "warm": 2}

    text = render(build_registry(stats, Sources())).decode()
    assert 'torchdrill_submissions_judged_total{verdict="accepted"} 1.0' in text
    assert 'torchdrill_judge_events_total{event="duplicate"} 1.0' in text
    assert 'torchdrill_judge_latency_seconds_bucket{le="0.25"} 0.0' in text
    assert 'torchdrill_judge_latency_seconds_bucket{le="0.5"} 1.0' in text
    assert 'torchdrill_judge_latency_seconds_bucket{le="20.0"} 2.0' in text
    assert 'torchdrill_judge_latency_seconds_bucket{le="+Inf"} 2.0' in text
    assert "torchdrill_judge_latency_seconds_count 2.0" in text
    assert 'torchdrill_submissions{status="running"} 1.0' in text


def test_a_broken_source_drops_its_metrics_not_the_scrape() -> None:
    class Broken:
        def queue_depth(self) -> dict[str, int]:
            raise ConnectionError("redis restarting")

        def submissions_by_status(self) -> dict[str, int]:
            return {"queued": 0}

        def sandbox_pool(self) -> dict[str, int]:
            raise ConnectionError("redis restarting")

    text = render(build_registry(LocalStats(), Broken())).decode()
    assert "torchdrill_queue_depth" not in text and 'torchdrill_submissions{status="queued"} 0.0' in text


def test_json_log_lines_carry_the_submission_id() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(SubmissionFilter())
    handler.setFormatter(JsonFormatter("web"))
    logger = logging.getLogger("tests.scale.logs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with submission_context(42):
            logger.info("judged %s", "accepted", extra={"worker": "runner-1"})
            try:
                raise ValueError("boom")
            except ValueError:
                logger.exception("failed")
        logger.info("outside")
    finally:
        logger.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines[0]["submission_id"] == 42 and lines[0]["message"] == "judged accepted"
    assert lines[0]["worker"] == "runner-1" and lines[0]["service"] == "web"
    assert lines[1]["submission_id"] == 42 and "ValueError: boom" in lines[1]["exc"]
    assert "submission_id" not in lines[2]


def test_runner_worker_writes_the_same_shape() -> None:
    """The runner worker formats with the one shared formatter (runner.logs), as the web does."""
    from runner import logs
    from runner.transport import celery_worker

    record = logging.makeLogRecord({"name": "runner.worker", "msg": "judged", "levelname": "INFO"})
    with logs.submission_context(7):
        logs.SubmissionFilter().filter(record)
        entry = json.loads(logs.JsonFormatter("runner").format(record))
    assert entry["submission_id"] == 7 and entry["service"] == "runner"
    assert Path(celery_worker.__file__).read_text().count("import app") == 0
