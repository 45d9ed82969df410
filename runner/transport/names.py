"""The Redis names of one deployment (``Wire``): its queues' lists, keys and pub/sub channel.

Apart from ``wire.py`` because the settings of every process import it, and this imports nothing
heavier than the standard library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

NAMESPACE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")


def default_namespace(broker_url: str) -> str:
    """``torchdrill-db<N>``: the deployment's name when ``TORCHDRILL_NAMESPACE`` is not set.

    Keys and queues live in one Redis database, but pub/sub channels are shared by all of a
    server's databases: the database number in the name keeps two deployments on one Redis (in
    different databases) apart even on the channel.
    """
    path = urlsplit(broker_url).path.strip("/")
    return f"torchdrill-db{int(path) if path.isdigit() else 0}"


@dataclass(frozen=True)
class Wire:
    """Every Redis name of one deployment: its queues' lists, its keys and its channel.

    Celery's own keys (the queues' lists, the unacknowledged messages, kombu's bindings) get the
    same prefix through kombu's ``global_keyprefix``; ours are made here. Nothing of a deployment
    is named outside ``<namespace>:``.
    """

    namespace: str

    def __post_init__(self) -> None:
        if not NAMESPACE_RE.fullmatch(self.namespace):
            raise ValueError(
                f"TORCHDRILL_NAMESPACE {self.namespace!r}: letters, digits, '_', '.', '-' (at most 63)"
            )

    @classmethod
    def of(cls, broker_url: str, namespace: str | None = None) -> Wire:
        return cls(namespace or default_namespace(broker_url))

    @property
    def prefix(self) -> str:
        return f"{self.namespace}:"

    def key(self, name: str) -> str:
        return self.prefix + name

    def queue_key(self, queue: str) -> str:
        """The Redis list that holds ``queue``'s messages (kombu prefixes it the same way)."""
        return self.key(queue)

    @property
    def runners_key(self) -> str:
        """Hash: worker name -> JSON heartbeat (pool size, runtime)."""
        return self.key("runners")

    @property
    def finished_channel(self) -> str:
        """Pub/sub: ids of submissions whose verdict was recorded."""
        return self.key("finished")

    @property
    def consumers_key(self) -> str:
        """Set of the consumers (runner workers, recorders) that hold leases (``leases.py``)."""
        return self.key("consumers")

    def lease_key(self, owner: str) -> str:
        return self.key(f"lease:{owner}")

    def done_key(self, submission_id: int) -> str:
        """Set by the recorder once a verdict is stored; runners skip such jobs."""
        return self.key(f"done:{submission_id}")

    def deliveries_key(self, submission_id: int) -> str:
        return self.key(f"deliveries:{submission_id}")

    def dispatched_key(self, submission_id: int) -> str:
        return self.key(f"dispatched:{submission_id}")

    def reply_key(self, token: str) -> str:
        return self.key(f"reply:{token}")


def unacked_keys(owner: str) -> dict[str, str]:
    """kombu's keys of the messages one consumer holds unacknowledged (before the prefix).

    One set per consumer, not kombu's shared one, so the reaper (``leases.py``) can put back
    exactly what a dead consumer held, at once, instead of after the visibility timeout.
    """
    return {
        "unacked_key": f"unacked:{owner}",
        "unacked_index_key": f"unacked_index:{owner}",
        "unacked_mutex_key": f"unacked_mutex:{owner}",
    }
