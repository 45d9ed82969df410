"""Sending mail: SMTP when ``TORCHDRILL_SMTP_URL`` is set, else the log (development).

``smtp://user:password@host:587`` uses STARTTLS when the server offers it (``?starttls=require``
insists, ``?starttls=off`` never tries); ``smtps://host:465`` is TLS from the first byte. The From
address is ``TORCHDRILL_MAIL_FROM``. See docs/mail.md.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import threading
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

from app.kit.settings import Settings

log = logging.getLogger(__name__)
TIMEOUT_S = 20


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    user: str | None
    password: str | None
    tls: bool  # TLS from the start (smtps)
    starttls: str  # "auto", "require" or "off"

    @classmethod
    def parse(cls, url: str) -> SmtpServer:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError(
                "TORCHDRILL_SMTP_URL must look like smtp://user:password@host:587 or smtps://host:465"
            )
        starttls = parse_qs(parts.query).get("starttls", ["auto"])[0]
        if starttls not in ("auto", "require", "off"):
            raise ValueError("TORCHDRILL_SMTP_URL: starttls must be auto, require or off")
        tls = parts.scheme == "smtps"
        return cls(
            host=parts.hostname,
            port=parts.port or (465 if tls else 587),
            user=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            tls=tls,
            starttls=starttls,
        )


def build_message(sender: str, to: str, subject: str, body: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    return message


class Mailer:
    """Sends plain-text mail. ``send`` never raises: a failure is logged (the request already answered)."""

    def __init__(self, settings: Settings) -> None:
        self.sender = settings.mail_from
        self.server = SmtpServer.parse(settings.smtp_url) if settings.smtp_url else None
        # Mail may carry secrets (reset links): only development writes it out in full.
        self.log_body = settings.env == "development"

    def send(self, to: str, subject: str, body: str) -> bool:
        message = build_message(self.sender, to, subject, body)
        if self.server is None:
            if self.log_body:
                log.warning(
                    "mail not configured (TORCHDRILL_SMTP_URL); it would have been sent:\n%s", message
                )
            else:
                log.error("mail not configured (TORCHDRILL_SMTP_URL): not sent to %s: %s", to, subject)
            return False
        try:
            self._deliver(self.server, message)
        except (OSError, smtplib.SMTPException) as exc:
            log.error("sending mail to %s failed: %s", to, exc)
            return False
        log.info("mail sent to %s: %s", to, subject)
        return True

    def send_later(self, to: str, subject: str, body: str) -> None:
        """Send in the background: the answer's timing must not tell whether an account exists."""
        threading.Thread(target=self.send, args=(to, subject, body), name="mail", daemon=True).start()

    @staticmethod
    def _deliver(server: SmtpServer, message: EmailMessage) -> None:
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if server.tls:
            smtp = smtplib.SMTP_SSL(server.host, server.port, timeout=TIMEOUT_S, context=context)
        else:
            smtp = smtplib.SMTP(server.host, server.port, timeout=TIMEOUT_S)
        with smtp:
            smtp.ehlo()
            if not server.tls and server.starttls != "off":
                if smtp.has_extn("starttls"):
                    smtp.starttls(context=context)
                    smtp.ehlo()
                elif server.starttls == "require":
                    raise smtplib.SMTPException("the server does not offer STARTTLS (starttls=require)")
            if server.user:
                smtp.login(server.user, server.password or "")
            smtp.send_message(message)
