"""The deployment files: docker-compose accepts the compose file, and it keeps its promises."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SECRETS = {
    "POSTGRES_PASSWORD": "pg-" + "p" * 30,
    "REDIS_PASSWORD": "redis-" + "r" * 30,
    "TORCHDRILL_SECRET_KEY": "k" * 48,
    "TORCHDRILL_METRICS_TOKEN": "m" * 32,
    "TORCHDRILL_PUBLIC_URL": "https://drill.example.org",
}


def compose_config(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose is not installed")
    clean = {k: v for k, v in os.environ.items() if k not in SECRETS and not k.startswith("TORCHDRILL_")}
    return subprocess.run(
        [binary, "-f", str(REPO / "docker-compose.yml"), "--project-directory", str(REPO), "config"],
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    result = compose_config(SECRETS)
    assert result.returncode == 0, result.stderr
    import yaml  # PyYAML: installed with the dev tools (schemathesis depends on it)

    loaded: dict[str, Any] = yaml.safe_load(result.stdout)
    return loaded


def test_compose_file_is_accepted_and_refuses_missing_secrets() -> None:
    assert compose_config(SECRETS).returncode == 0
    for name in SECRETS:
        result = compose_config({k: v for k, v in SECRETS.items() if k != name})
        assert result.returncode != 0, f"compose started without {name}"
        assert name in result.stderr


def test_runner_reaches_only_the_broker_and_holds_no_database_secret(config: dict[str, Any]) -> None:
    services = config["services"]
    assert set(services) >= {"web", "runner", "recorder", "postgres", "redis", "migrate"}
    runner = services["runner"]
    assert set(runner["networks"]) == {"broker"}
    assert config["networks"]["broker"].get("internal") is True
    assert set(services["postgres"]["networks"]) == {"backend"}  # not on the runner's network
    env = runner["environment"]
    assert set(env) <= {
        "TORCHDRILL_BROKER_URL",
        "TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S",
        "TORCHDRILL_RUNNER_SLOTS",
        "TORCHDRILL_MAX_DELIVERIES",
        "TORCHDRILL_LOG_FORMAT",
    }
    assert SECRETS["POSTGRES_PASSWORD"] not in json.dumps(runner)
    assert SECRETS["TORCHDRILL_SECRET_KEY"] not in json.dumps(runner)
    assert "container_name" not in runner and "ports" not in runner  # --scale runner=N works


def test_web_is_production_with_health_checks_and_migrations_first(config: dict[str, Any]) -> None:
    services = config["services"]
    for name in ("web", "recorder", "runner", "postgres", "redis"):
        assert "healthcheck" in services[name], name
    web = services["web"]
    assert web["environment"]["TORCHDRILL_ENV"] == "production"
    assert web["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["command"] == ["migrate"]
    assert web.get("user") in (None, "torchdrill")  # the image's non-root user


def test_web_names_its_site_and_trusts_only_the_frontend_gateway(config: dict[str, Any]) -> None:
    env = config["services"]["web"]["environment"]
    assert env["TORCHDRILL_PUBLIC_URL"] == SECRETS["TORCHDRILL_PUBLIC_URL"]
    [frontend] = config["networks"]["frontend"]["ipam"]["config"]
    assert env["TORCHDRILL_FORWARDED_ALLOW_IPS"] == frontend["gateway"]  # the host's proxy, nobody else
    assert "frontend" in config["services"]["web"]["networks"]


def test_no_secret_is_baked_into_the_image() -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    for word in ("SECRET", "PASSWORD", "TOKEN"):
        assert word not in dockerfile.upper().replace("NO SECRET IS BAKED", ""), word
    ignored = (REPO / ".dockerignore").read_text().split()
    assert ".env" in ignored and ".git" in ignored and ".venv" in ignored
    assert "bubblewrap" in dockerfile and "download.pytorch.org/whl/cpu" in dockerfile
    assert dockerfile.count("FROM ") >= 2  # multi-stage
