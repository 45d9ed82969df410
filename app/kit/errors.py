"""Expected failures carry their HTTP status and a stable code; one handler renders them.

Routes and services raise these; :func:`app.main.create_app` installs the handler that turns
them into ``{"error": code, "detail": message}`` (JSON) or an HTML error page (pages).
"""

from __future__ import annotations


class AppError(Exception):
    status_code = 400
    code = "bad_request"
    default_detail = "The request could not be processed."

    def __init__(self, detail: str | None = None) -> None:
        self.detail = detail or self.default_detail
        super().__init__(self.detail)

    @property
    def headers(self) -> dict[str, str]:
        """Extra response headers (``Retry-After``, ``WWW-Authenticate``)."""
        return {}


class NotFound(AppError):
    status_code = 404
    code = "not_found"
    default_detail = "Not found."


class LoginRequired(AppError):
    status_code = 401
    code = "login_required"
    default_detail = "Log in to do this."


class InvalidToken(LoginRequired):
    code = "invalid_token"
    default_detail = "The API token is missing, malformed, revoked, expired or unknown."

    @property
    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": "Bearer"}


class Forbidden(AppError):
    status_code = 403
    code = "forbidden"
    default_detail = "You are not allowed to do this."


class CsrfFailed(Forbidden):
    code = "csrf_failed"
    default_detail = "The form expired or did not come from this site. Reload the page and try again."


class PremiumRequired(Forbidden):
    code = "premium_required"
    default_detail = "This problem is part of Premium. Upgrade to run and submit code."


class InvalidInput(AppError):
    status_code = 422
    code = "invalid_input"
    default_detail = "The input is not valid."

    def __init__(self, detail: str | None = None, *, field: str | None = None) -> None:
        super().__init__(detail)
        self.field = field  # the input it is about, so a form shows the message next to it


class PayloadTooLarge(AppError):
    status_code = 413
    code = "payload_too_large"
    default_detail = "The request is too large."


class Conflict(AppError):
    status_code = 409
    code = "conflict"
    default_detail = "The request conflicts with the current state."


class TooManyRequests(AppError):
    status_code = 429
    code = "rate_limited"
    default_detail = "Too many requests. Slow down and try again shortly."

    def __init__(self, detail: str | None = None, retry_after_s: float = 1.0) -> None:
        self.retry_after_s = max(1, int(retry_after_s + 0.999))
        super().__init__(detail)

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


class ServiceUnavailable(AppError):
    status_code = 503
    code = "unavailable"
    default_detail = "The service is not ready. Try again in a moment."


class FormErrors(InvalidInput):
    """Field-level validation errors a page form re-renders next to the fields."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
