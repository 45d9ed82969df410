"""Leases and the reaper on a real Redis, with a stand-in clock for the reaper's own wait."""

from __future__ import annotations

import json

import pytest

from runner.transport.leases import Lease, Reaper, restore_held
from runner.transport.names import Wire
from tests.scale.stack import RedisServer

pytestmark = pytest.mark.celery

WIRE = Wire("lease-test")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def hold(server: RedisServer, owner: str, tag: str, queue: str, body: str) -> None:
    """A message ``owner`` holds, as kombu records it: [message, exchange, routing key]."""
    message = {"body": body, "headers": {"task": "t"}, "properties": {"delivery_tag": tag}}
    client = server.client()
    client.hset(WIRE.key(f"unacked:{owner}"), tag, json.dumps([message, "", queue]))
    client.zadd(WIRE.key(f"unacked_index:{owner}"), {tag: 1.0})


def test_a_dead_consumers_messages_go_back_to_the_front_of_their_queues(redis_server: RedisServer) -> None:
    client = redis_server.client()
    client.flushall()
    client.rpush(WIRE.queue_key("judge"), "waiting-before")
    hold(redis_server, "gone", "a", "judge", "job-a")
    hold(redis_server, "gone", "b", "results", "result-b")
    assert restore_held(client, WIRE, "gone") == 2
    # BRPOP takes from the right: the put-back job comes before the one that waited.
    assert json.loads(client.rpop(WIRE.queue_key("judge")))["body"] == "job-a"
    assert client.rpop(WIRE.queue_key("judge")) == b"waiting-before"
    restored = json.loads(client.rpop(WIRE.queue_key("results")))
    assert restored["body"] == "result-b" and restored["headers"]["redelivered"] is True
    assert not client.exists(WIRE.key("unacked:gone"), WIRE.key("unacked_index:gone"))
    assert restore_held(client, WIRE, "gone") == 0  # nothing twice


def test_the_reaper_spares_live_leases_and_waits_a_lease_of_its_own(redis_server: RedisServer) -> None:
    client = redis_server.client()
    client.flushall()
    live = Lease(client, WIRE, "live", lease_s=60)
    live.renew()
    dead = Lease(client, WIRE, "dead", lease_s=60)
    dead.renew()
    client.delete(WIRE.lease_key("dead"))  # its lease ran out
    hold(redis_server, "live", "l", "judge", "job-live")
    hold(redis_server, "dead", "d", "judge", "job-dead")
    clock = Clock()
    reaper = Reaper(client, WIRE, lease_s=2.0, clock=clock)
    assert reaper.reap_once() == {}  # first sight: not yet
    clock.now += 1.9
    assert reaper.reap_once() == {}
    dead.renew()  # it was only cut off: renewed in time, nothing is taken from it
    clock.now += 0.5
    assert reaper.reap_once() == {}
    client.delete(WIRE.lease_key("dead"))
    assert reaper.reap_once() == {}
    clock.now += 2.0
    assert reaper.reap_once() == {"dead": 1}
    assert client.llen(WIRE.queue_key("judge")) == 1
    assert client.hlen(WIRE.key("unacked:live")) == 1  # the live one keeps what it holds
    assert client.smembers(WIRE.consumers_key) == {b"live"}


def test_a_released_lease_is_gone_at_once(redis_server: RedisServer) -> None:
    client = redis_server.client()
    client.flushall()
    lease = Lease(client, WIRE, "stopping", lease_s=60)
    lease.start()
    assert client.exists(WIRE.lease_key("stopping"))
    lease.release()
    assert not client.exists(WIRE.lease_key("stopping"))


def test_deployments_in_different_databases_have_different_names() -> None:
    one, two = Wire.of("redis://h:6379/1"), Wire.of("redis://h:6379/2")
    assert one.finished_channel != two.finished_channel  # channels cross databases: names must not
    assert Wire.of("redis://h:6379").namespace == "torchdrill-db0"
    assert Wire.of("redis://h:6379/1", "school-a").queue_key("judge") == "school-a:judge"
    with pytest.raises(ValueError):
        Wire("bad name with spaces")
