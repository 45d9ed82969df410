"""The runner worker's settings: ``TORCHDRILL_*`` environment variables only.

The runner never imports ``app`` (so not ``app.kit.settings``) and reads no ``.env`` file: a
runner host gets its environment from its service manager (systemd's ``EnvironmentFile=``, the
compose file). :data:`DEFAULTS` is what docs/deploy.md's settings table states for these names
(``tests/app/kit/test_settings_table.py`` compares them).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from runner.transport.names import Wire

DEVELOPMENT_BROKER_URL = "redis://127.0.0.1:6379/0"

# name -> default (None: unset). TORCHDRILL_RUNNER_SLOTS is read by runner.engine.default_slots.
DEFAULTS: dict[str, str | None] = {
    "TORCHDRILL_ENV": "development",
    "TORCHDRILL_BROKER_URL": None,
    "TORCHDRILL_NAMESPACE": None,
    "TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S": "120",
    "TORCHDRILL_LEASE_S": "2",
    "TORCHDRILL_MAX_DELIVERIES": "3",
    "TORCHDRILL_HEARTBEAT_FILE": None,
    "TORCHDRILL_WORKER_NAME": None,
    "TORCHDRILL_LOG_FORMAT": "text",
    "TORCHDRILL_LOG_LEVEL": "INFO",
    "TORCHDRILL_RUNNER_SLOTS": None,
}


class MissingBrokerUrl(SystemExit):
    pass


def _get(environ: Mapping[str, str], name: str) -> str | None:
    raw = environ.get(name, "").strip()
    return raw or DEFAULTS[name]


@dataclass(frozen=True)
class WorkerSettings:
    env: str
    broker_url: str
    broker_url_given: bool
    wire: Wire
    visibility_timeout_s: float
    lease_s: float
    max_deliveries: int
    worker_name: str
    heartbeat_file: Path
    log_format: str
    log_level: str

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WorkerSettings:
        environ = os.environ if environ is None else environ
        given = _get(environ, "TORCHDRILL_BROKER_URL")
        broker_url = given or DEVELOPMENT_BROKER_URL
        pid = os.getpid()
        name = _get(environ, "TORCHDRILL_WORKER_NAME") or f"runner-{pid}@{socket.gethostname()}"
        heartbeat = _get(environ, "TORCHDRILL_HEARTBEAT_FILE") or f"/tmp/torchdrill-runner-{pid}.heartbeat"
        return cls(
            env=_get(environ, "TORCHDRILL_ENV") or "development",
            broker_url=broker_url,
            broker_url_given=given is not None,
            wire=Wire.of(broker_url, _get(environ, "TORCHDRILL_NAMESPACE")),
            visibility_timeout_s=float(_get(environ, "TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S") or 120),
            lease_s=float(_get(environ, "TORCHDRILL_LEASE_S") or 2),
            max_deliveries=int(_get(environ, "TORCHDRILL_MAX_DELIVERIES") or 3),
            worker_name=name,
            heartbeat_file=Path(heartbeat),
            log_format=_get(environ, "TORCHDRILL_LOG_FORMAT") or "text",
            log_level=(_get(environ, "TORCHDRILL_LOG_LEVEL") or "INFO").upper(),
        )

    def check_broker(self) -> None:
        """Outside development the broker must be named: a runner that silently polls a local
        Redis nobody publishes to looks healthy and judges nothing."""
        if self.env != "development" and not self.broker_url_given:
            raise MissingBrokerUrl(
                "TORCHDRILL_BROKER_URL must be set for a runner worker outside development "
                "(e.g. redis://:PASSWORD@redis-host:6379/0, the web's and the recorder's broker); "
                "see docs/deploy.md"
            )
