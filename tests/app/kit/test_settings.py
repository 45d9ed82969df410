from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.kit.settings import DEFAULT_SECRET, Settings

SITE = {"public_url": "https://drill.example.org", "metrics_token": "m" * 32}


def test_production_refuses_the_default_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHDRILL_SECRET_KEY", raising=False)
    with pytest.raises(ValidationError, match="TORCHDRILL_SECRET_KEY"):
        Settings(env="production", **SITE)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Settings(env="production", secret_key="too-short", **SITE)  # type: ignore[arg-type]
    assert Settings(env="production", secret_key="s" * 40, **SITE).secure_cookies  # type: ignore[arg-type]
    assert Settings(env="development").secret_key == DEFAULT_SECRET


def test_environment_variables_use_the_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("TORCHDRILL_MAX_CODE_BYTES", "2048")
    monkeypatch.setenv("PORT", "9123")
    settings = Settings()
    assert settings.database_url == "postgresql+psycopg://u@h/db"
    assert settings.max_code_bytes == 2048 and settings.port == 9123
    monkeypatch.setenv("TORCHDRILL_ENV", "staging")
    with pytest.raises(ValidationError):
        Settings()


def test_the_pool_must_leave_requests_a_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCHDRILL_DB_POOL_SIZE", "8")
    assert Settings().db_pool_size == 8
    with pytest.raises(ValidationError, match="TORCHDRILL_DB_POOL_SIZE"):
        Settings(db_pool_size=8, judge_workers=6)  # 6 judge threads + 2 spare: no slot for requests
    assert Settings(db_pool_size=9, judge_workers=6).db_pool_size == 9
