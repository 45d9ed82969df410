"""What API v1 routes depend on: who calls (bearer tokens, from ``app.accounts.deps``), the token's
scope (:func:`needs`) and body size."""

from __future__ import annotations

from fastapi import Request

from app.accounts.deps import (
    ApiToken,
    ApiUser,
    OptionalApiUser,
    api_user,
    bearer,
    get_limiter,
    needs,
    optional_api_user,
)
from app.kit.errors import PayloadTooLarge
from app.kit.web import SettingsDep

__all__ = [
    "ApiToken",
    "ApiUser",
    "OptionalApiUser",
    "api_user",
    "bearer",
    "get_limiter",
    "limit_body",
    "needs",
    "optional_api_user",
]


async def limit_body(request: Request, settings: SettingsDep) -> None:
    """Refuse a declared body far larger than any acceptable submission before reading it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > 6 * settings.max_code_bytes + 4096:
        raise PayloadTooLarge(
            f"The request body is {declared} bytes; code is limited to {settings.max_code_bytes}."
        )
