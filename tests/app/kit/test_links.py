"""app.kit.links and the settings behind it: links from configuration only; production names its
site and guards /metrics, or refuses to start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.kit.links import absolute_url, parse_public_url, public_url
from app.kit.settings import Settings

SECRET = "s" * 40
ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("given", "base"),
    [
        ("https://drill.example.org", "https://drill.example.org"),
        ("https://drill.example.org/", "https://drill.example.org"),
        ("HTTPS://Drill.Example.ORG.", "https://drill.example.org"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("https://drill.example.org:8443/", "https://drill.example.org:8443"),
        ("http://[::1]:9000", "http://[::1]:9000"),
        ("  https://drill.example.org  ", "https://drill.example.org"),
    ],
)
def test_a_public_url_is_kept_as_scheme_host_and_port(given: str, base: str) -> None:
    assert parse_public_url(given) == base


@pytest.mark.parametrize(
    "given",
    [
        "drill.example.org",  # no scheme
        "ftp://drill.example.org",
        "javascript:alert(1)",
        "https://",
        "https://user:pw@drill.example.org",  # credentials in every mailed link
        "https://evil.example@drill.example.org",
        "https://drill.example.org/app",  # served at the root only
        "https://drill.example.org/?next=//evil.example",
        "https://drill.example.org/#x",
        "https://drill.example.org:port",
        "https://drill.example.org:99999",
    ],
)
def test_anything_else_is_refused_with_the_variable_named(given: str) -> None:
    with pytest.raises(ValueError, match="TORCHDRILL_PUBLIC_URL"):
        parse_public_url(given)
    with pytest.raises(ValidationError, match="TORCHDRILL_PUBLIC_URL"):
        Settings(public_url=given)


def test_absolute_links_start_from_the_configuration() -> None:
    settings = Settings(public_url="https://drill.example.org/")
    assert absolute_url(settings, "/reset-password", token="a b&c") == (
        "https://drill.example.org/reset-password?token=a+b%26c"
    )
    assert absolute_url(settings, "/problems/x?tab=1") == "https://drill.example.org/problems/x?tab=1"
    for bad in ("reset", "//evil.example/x", "/\\evil.example", "https://evil.example/"):
        with pytest.raises(ValueError):
            absolute_url(settings, bad)


def test_development_defaults_to_the_loopback_and_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHDRILL_PUBLIC_URL", raising=False)
    monkeypatch.setenv("PORT", "9123")
    assert public_url(Settings()) == "http://127.0.0.1:9123"
    assert absolute_url(Settings(), "/login") == "http://127.0.0.1:9123/login"


def test_production_refuses_to_start_without_a_public_url_or_a_metrics_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("TORCHDRILL_PUBLIC_URL", "TORCHDRILL_METRICS_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValidationError, match="TORCHDRILL_PUBLIC_URL") as both:
        Settings(env="production", secret_key=SECRET)
    assert "TORCHDRILL_METRICS_TOKEN" in str(both.value)
    with pytest.raises(ValidationError, match="TORCHDRILL_PUBLIC_URL") as no_url:
        Settings(env="production", secret_key=SECRET, metrics_token="m" * 32)
    assert "TORCHDRILL_METRICS_TOKEN" not in str(no_url.value)
    for token in (None, "", "short-token"):
        with pytest.raises(ValidationError, match="TORCHDRILL_METRICS_TOKEN"):
            Settings(env="production", secret_key=SECRET, public_url="https://d.example", metrics_token=token)
    monkeypatch.setenv("TORCHDRILL_ENV", "production")
    monkeypatch.setenv("TORCHDRILL_SECRET_KEY", SECRET)
    monkeypatch.setenv("TORCHDRILL_PUBLIC_URL", "https://drill.example.org")
    monkeypatch.setenv("TORCHDRILL_METRICS_TOKEN", "m" * 32)
    assert Settings().public_url == "https://drill.example.org"


def test_host_and_proxy_lists_come_comma_separated_and_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCHDRILL_ALLOWED_HOSTS", " Drill.Example.ORG. ,www.example.org,[::1]")
    monkeypatch.setenv("TORCHDRILL_FORWARDED_ALLOW_IPS", "127.0.0.1, 172.31.250.0/24,::1")
    settings = Settings()
    assert settings.allowed_hosts == ["drill.example.org", "www.example.org", "[::1]"]
    assert settings.forwarded_allow_ips == ["127.0.0.1", "172.31.250.0/24", "::1"]
    assert Settings(forwarded_allow_ips="").forwarded_allow_ips == []
    for host in ("https://drill.example.org", "drill.example.org:443", "evil.example/", "a b", "*"):
        with pytest.raises(ValidationError, match="TORCHDRILL_ALLOWED_HOSTS"):
            Settings(allowed_hosts=host)
    for address in ("localhost", "proxy.internal", "10.0.0.300", "10.0.0.0/33"):
        with pytest.raises(ValidationError, match="TORCHDRILL_FORWARDED_ALLOW_IPS"):
            Settings(forwarded_allow_ips=address)


def test_python_m_app_refuses_to_start_in_production_without_its_site() -> None:
    """The real entry point, with only the secret set: it exits at once and says what is missing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHDRILL_") and k != "PORT"}
    env |= {"TORCHDRILL_ENV": "production", "TORCHDRILL_SECRET_KEY": SECRET,
            "TORCHDRILL_DATABASE_URL": "sqlite:///unused-never-created.db"}  # fmt: skip
    started = subprocess.run(
        [sys.executable, "-m", "app"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert started.returncode != 0
    assert "TORCHDRILL_PUBLIC_URL" in started.stderr and "TORCHDRILL_METRICS_TOKEN" in started.stderr
    assert "Torchdrill is serving" not in started.stdout
