"""A real SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives, for mail tests."""

from __future__ import annotations

import socket
import threading
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.changed = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        with self.changed:
            self.messages.append(message)
            self.changed.notify_all()
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalSmtp:
    """``with LocalSmtp() as smtp:`` then ``smtp.url`` for TORCHDRILL_SMTP_URL, ``smtp.wait_for(to)``."""

    def __init__(self) -> None:
        self.inbox = _Inbox()
        self.port = _free_port()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?starttls=off"

    def __enter__(self) -> LocalSmtp:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.inbox.messages if m["To"] == address]

    def wait_for(self, address: str, count: int = 1, timeout: float = 20.0) -> list[EmailMessage]:
        """The mails to ``address`` once there are ``count`` of them (fails after ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self.inbox.changed:
            while len(self.to(address)) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"no mail #{count} to {address} within {timeout:g} s"
                self.inbox.changed.wait(left)
        return self.to(address)
