"""The one settings object, read from ``TORCHDRILL_*`` environment variables (and ``.env``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from runner.transport.names import Wire

DEFAULT_SECRET = "dev-insecure-secret-change-me"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TORCHDRILL_", env_file=".env", extra="ignore")

    env: Literal["development", "production"] = "development"
    database_url: str = "sqlite:///./var/torchdrill.db"
    secret_key: str = DEFAULT_SECRET
    problems_dir: Path = Path("problems")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535, validation_alias=AliasChoices("TORCHDRILL_PORT", "PORT"))
    max_code_bytes: int = Field(default=64 * 1024, ge=1024, le=1024 * 1024)
    # Embedded judge threads. One more than the sandbox runs jobs at once (TORCHDRILL_RUNNER_SLOTS,
    # one per CPU: runner.engine.default_slots), so one thread's database work (the claim, the
    # verdict's recording) overlaps the others' jobs and no CPU waits for it (docs/benchmarks.md).
    judge_workers: int = Field(default=3, ge=1, le=32)
    # Connections one process opens at most; requests get what the judge threads and a small spare
    # leave (the arithmetic: app/kit/db.py).
    db_pool_size: int = Field(default=20, ge=4, le=1000)
    wait_timeout_s: float = Field(default=30.0, gt=0, le=120)
    # A waiting ``?wait=true`` request reads its submission again this often even without a
    # wake-up, so a lost announcement (a recorder killed between saving and announcing) costs
    # this long at most, not the whole wait.
    wait_recheck_s: float = Field(default=2.0, gt=0, le=60)
    # Request bodies are counted as they arrive (app/kit/body_limit.py): beyond this, 413.
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=64 * 1024, le=256 * 1024 * 1024)
    session_cookie: str = "torchdrill_session"
    session_max_age_s: int = 14 * 24 * 3600
    # Log-in throttling (docs/security.md, "Rate limits per real client"): failed log-ins allowed
    # per (email, client) and per client within the window, and per email from browsers that never
    # logged in to it (a browser that did is remembered by a signed cookie and never locked out).
    login_max_failures_per_email: int = Field(default=5, ge=1, le=1000)  # per (email, client)
    login_max_failures_per_client: int = Field(default=50, ge=1, le=100000)
    login_max_failures_per_account: int = Field(default=20, ge=1, le=100000)  # unknown browsers
    login_window_s: int = Field(default=15 * 60, ge=1, le=24 * 3600)
    # Sign-ups (which tell whether an email has an account) per client address an hour.
    signup_per_client_hour: int = Field(default=30, ge=1, le=100000)
    # REST API v1 per-user limits (requests per minute; submissions per minute, counted in the database).
    api_requests_per_minute: int = Field(default=600, ge=1, le=1_000_000)
    api_submissions_per_minute: int = Field(default=30, ge=1, le=1_000_000)
    # "I think this test is wrong" reports a learner may file a minute (pages, API and CLI alike).
    reports_per_minute: int = Field(default=5, ge=1, le=1_000_000)
    solution_posts_per_minute: int = Field(default=10, ge=1, le=1_000_000)
    # A discussion's new threads, replies and edits, and reports of posts to moderators, per user a minute.
    discussion_posts_per_minute: int = Field(default=6, ge=1, le=1_000_000)
    post_reports_per_minute: int = Field(default=5, ge=1, le=1_000_000)
    api_page_size: int = Field(default=50, ge=1, le=500)
    # Scale-out (docs/deploy.md): a broker URL switches judging to runner workers behind Celery.
    broker_url: str | None = None
    broker_visibility_timeout_s: float = Field(default=120.0, ge=1, le=24 * 3600)
    # The deployment's name in Redis: every queue, key and channel starts with "<namespace>:".
    # Unset: torchdrill-db<N>, N the broker URL's database number (runner.transport.wire).
    namespace: str | None = None
    # A consumer (runner worker, recorder) whose lease is not renewed for this long, and then as
    # long again, is dead: what it held goes back to its queue (runner/transport/leases.py).
    lease_s: float = Field(default=2.0, ge=0.5, le=300)
    requeue_after_s: float = Field(default=300.0, gt=0)  # lost job -> published again by the sweeper
    stuck_after_s: float = Field(default=900.0, gt=0)  # unfinished for this long -> internal_error
    sweep_interval_s: float = Field(default=5.0, gt=0, le=300)
    recorder_concurrency: int = Field(default=4, ge=1, le=64)
    log_format: Literal["text", "json"] = "text"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"  # the recorder's Celery worker
    # /metrics wants "Authorization: Bearer <token>" when set; production refuses to start without it.
    metrics_token: str | None = None
    # Billing (docs/billing.md): off by default; "stripe" sells Premium through Stripe Checkout.
    billing_provider: Literal["off", "stripe"] = "off"
    stripe_secret_key: str | None = None
    stripe_webhook_secret: str | None = None
    stripe_price_id: str | None = None
    billing_premium_days: int = Field(default=365, ge=1, le=3660)  # Premium bought by one payment
    # The site's address, e.g. https://drill.example.org: every absolute link (reset mails, Checkout's
    # way back, course invitations) is made from it, never from the request (app/kit/links.py), and
    # it names the one host the app answers for (app/kit/hosts.py). Required in production; in
    # development http://127.0.0.1:PORT.
    public_url: str | None = None
    # More host names the app answers for (comma-separated), besides public_url's (and, in
    # development, localhost, 127.0.0.1 and [::1]).
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (comma-separated IPs
    # or networks, e.g. "127.0.0.1,172.31.250.1"); empty: none, every client is its TCP peer.
    forwarded_allow_ips: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Mail (docs/mail.md): without an SMTP URL, mail is written to the log (development).
    smtp_url: str | None = None  # smtp://user:password@host:587 (STARTTLS) or smtps://host:465
    mail_from: str = "Torchdrill <no-reply@localhost>"
    # Password reset: how long a link works, and how many links an email / a client may ask for an hour.
    password_reset_ttl_s: int = Field(default=3600, ge=60, le=7 * 24 * 3600)
    password_reset_per_email_hour: int = Field(default=3, ge=1, le=1000)
    password_reset_per_client_hour: int = Field(default=20, ge=1, le=100000)
    # Two-factor sign-in (docs/security.md): with this on, instructors and admins must turn it on
    # before they can use the site (pages send them to /account/two-factor; the API answers 403).
    require_2fa_for_staff: bool = False
    # Wrong second factors allowed per account within the window, then wait (the password is known).
    two_factor_max_attempts: int = Field(default=5, ge=1, le=1000)
    two_factor_window_s: int = Field(default=15 * 60, ge=1, le=24 * 3600)
    # How long the sign-in page waits for the code once the password was right.
    two_factor_pending_s: int = Field(default=5 * 60, ge=30, le=3600)

    @model_validator(mode="after")
    def _refuse_default_secret(self) -> Settings:
        if self.env != "development" and (self.secret_key == DEFAULT_SECRET or len(self.secret_key) < 32):
            raise ValueError(
                "TORCHDRILL_SECRET_KEY must be set to a random value of at least 32 characters "
                "outside development (e.g. python -c 'import secrets; print(secrets.token_urlsafe(48))')"
            )
        return self

    @field_validator("namespace")
    @classmethod
    def _namespace_is_a_name(cls, value: str | None) -> str | None:
        if value:
            Wire(value)  # raises on a name Redis keys should not carry
        return value or None

    @field_validator("allowed_hosts", "forwarded_allow_ips", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url_is_a_site(cls, value: str | None) -> str | None:
        from app.kit.links import parse_public_url

        return parse_public_url(value) if value else None

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts_are_names(cls, value: list[str]) -> list[str]:
        from app.kit.hosts import normalise_allowed_host

        return [normalise_allowed_host(host) for host in value]

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _proxies_are_addresses(cls, value: list[str]) -> list[str]:
        from app.kit.hosts import check_proxy_address

        return [check_proxy_address(address) for address in value]

    @model_validator(mode="after")
    def _production_names_its_site_and_guards_metrics(self) -> Settings:
        if self.env != "production":
            return self
        missing = []
        if not self.public_url:
            missing.append("TORCHDRILL_PUBLIC_URL (the site's address, e.g. https://drill.example.org)")
        if not self.metrics_token or len(self.metrics_token) < 16:
            missing.append(
                "TORCHDRILL_METRICS_TOKEN (16+ random characters: /metrics is never public in production)"
            )
        if missing:
            raise ValueError(
                "production needs " + " and ".join(missing) + "; see docs/deploy.md (the settings table)"
            )
        return self

    @model_validator(mode="after")
    def _pool_has_room_for_requests(self) -> Settings:
        from app.kit.db import request_slots

        request_slots(self.db_pool_size, self.judge_workers)  # raises with the size it needs
        return self

    @model_validator(mode="after")
    def _billing_needs_its_keys(self) -> Settings:
        if self.billing_provider == "stripe":
            missing = [
                f"TORCHDRILL_{name.upper()}"
                for name in ("stripe_secret_key", "stripe_webhook_secret", "stripe_price_id")
                if not getattr(self, name)
            ]
            if missing:
                raise ValueError(
                    f"TORCHDRILL_BILLING_PROVIDER=stripe needs {', '.join(missing)} (docs/billing.md)"
                )
        return self

    @model_validator(mode="after")
    def _smtp_url_is_valid(self) -> Settings:
        if self.smtp_url:
            from app.kit.mail import SmtpServer

            SmtpServer.parse(self.smtp_url)
        return self

    @property
    def wire(self) -> Wire:
        """The Redis names of this deployment (queues, keys, channel)."""
        return Wire.of(self.broker_url or "", self.namespace)

    @property
    def secure_cookies(self) -> bool:
        return self.env == "production"


@lru_cache
def get_settings() -> Settings:
    return Settings()
