"""app.kit.mail against a real SMTP server on 127.0.0.1; the log stands in for mail in development."""

from __future__ import annotations

import logging

import pytest

from app.kit.mail import Mailer, SmtpServer
from app.kit.settings import Settings
from tests.local_smtp import LocalSmtp


def settings(**extra: object) -> Settings:
    return Settings(env="development", secret_key="x" * 40, **extra)  # type: ignore[arg-type]


def test_sends_through_smtp() -> None:
    with LocalSmtp() as smtp:
        mailer = Mailer(settings(smtp_url=smtp.url, mail_from="Drill <drill@example.org>"))
        assert mailer.send("ada@example.com", "Hello", "Line one\nLine two\n")
        [mail] = smtp.wait_for("ada@example.com")
    assert mail["From"] == "Drill <drill@example.org>" and mail["Subject"] == "Hello"
    assert "Line two" in mail.get_content()


def test_without_smtp_development_logs_the_mail_production_never_does(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "app.kit.mail")
    assert not Mailer(settings()).send("ada@example.com", "Reset", "secret-link-123")
    assert "secret-link-123" in caplog.text
    caplog.clear()
    production = Settings(
        env="production", secret_key="y" * 40, public_url="https://drill.example.org", metrics_token="m" * 32
    )
    assert not Mailer(production).send("ada@example.com", "Reset", "secret-link-456")
    assert "not sent to ada@example.com" in caplog.text and "secret-link-456" not in caplog.text


def test_smtp_urls() -> None:
    server = SmtpServer.parse("smtp://me%40corp:p%2Fw@mail.example.org?starttls=require")
    assert (server.host, server.port, server.user, server.password, server.tls, server.starttls) == (
        "mail.example.org", 587, "me@corp", "p/w", False, "require",
    )  # fmt: skip
    assert SmtpServer.parse("smtps://mail.example.org").port == 465
    for bad in ("http://mail.example.org", "smtp://", "smtp://h?starttls=maybe"):
        with pytest.raises(ValueError):
            SmtpServer.parse(bad)
    with pytest.raises(ValueError, match="TORCHDRILL_SMTP_URL"):
        settings(smtp_url="mailto:someone")
