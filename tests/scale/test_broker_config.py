"""The broker settings both sides share (no broker needed: kombu connections are lazy)."""

from __future__ import annotations

import ssl

from celery import Celery
from kombu import Connection

from runner.transport.wire import RedisTransport, Wire, celery_config


def connection_for(url: str) -> Connection:
    app = Celery("probe")
    app.conf.update(celery_config(url, 120, Wire.of(url)))
    return app.connection_for_read()


def test_plain_redis_uses_the_tolerant_transport_without_tls() -> None:
    conn = connection_for("redis://:secret@redis.example:6380/2")
    assert conn.get_transport_cls() is RedisTransport
    where = (conn.hostname, conn.port, conn.virtual_host, conn.password)
    assert where == ("redis.example", 6380, "2", "secret")
    assert not conn.ssl


def test_rediss_keeps_tls_and_verifies_the_server_certificate() -> None:
    conn = connection_for("rediss://:secret@redis.example:6380/0")
    assert conn.get_transport_cls() is RedisTransport
    assert conn.ssl == {"ssl_cert_reqs": ssl.CERT_REQUIRED}


def test_every_celery_key_is_in_the_namespace_and_each_consumer_holds_its_own_unacked_set() -> None:
    config = celery_config("redis://127.0.0.1:6379/3", 120, Wire.of("redis://127.0.0.1:6379/3"), "runner-a")
    options = config["broker_transport_options"]
    assert options["global_keyprefix"] == "torchdrill-db3:"
    assert (
        options["unacked_key"] == "unacked:runner-a"
        and options["unacked_index_key"] == "unacked_index:runner-a"
    )
