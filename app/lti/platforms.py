"""Registered LMS platforms and their deployments: add (admin page, ``torchdrill lti
add-platform``), list, remove, and the URL rule.

A platform's URLs must be https; in development (``TORCHDRILL_ENV=development``, what ``make run``
uses) http on 127.0.0.1/localhost is accepted too, so a local LMS and the tests work.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.kit.errors import FormErrors, NotFound
from app.kit.settings import Settings
from app.lti.models import LtiDeployment, LtiPlatform
from runner.format.fields import one_line_error

LOOPBACK = ("127.0.0.1", "localhost", "::1")
URL_FIELDS = ("issuer", "auth_url", "token_url", "jwks_url")


def url_problem(value: str, settings: Settings) -> str | None:
    """Why ``value`` is not an acceptable platform URL (None: it is)."""
    parts = urlsplit(value)
    if not value or not parts.netloc or parts.scheme not in ("https", "http") or parts.username:
        return "Enter a full URL, like https://lms.example.edu/…"
    if any(ch.isspace() for ch in value) or len(value) > 1000:
        return "A URL has no spaces and at most 1000 characters."
    if parts.scheme == "http":
        if settings.env == "development" and parts.hostname in LOOPBACK:
            return None
        return "Use https (plain http is accepted only on 127.0.0.1 in development)."
    return None


@dataclass(frozen=True)
class PlatformInput:
    issuer: str
    client_id: str
    deployment_id: str
    auth_url: str
    token_url: str
    jwks_url: str
    name: str = ""
    lms_url: str = ""  # optional: the address the LMS shows its pages on (it may frame the tool)

    def errors(self, settings: Settings) -> dict[str, str]:
        errors: dict[str, str] = {}
        for field in URL_FIELDS:
            problem = url_problem(getattr(self, field).strip(), settings)
            if problem:
                errors[field] = problem
        for field, label in (("client_id", "client id"), ("deployment_id", "deployment id")):
            value = getattr(self, field).strip()
            if not value or len(value) > 255:
                errors[field] = f"Enter the {label} the LMS gave (1–255 characters)."
        if self.lms_url.strip():
            problem = url_problem(self.lms_url.strip(), settings)
            if problem:
                errors["lms_url"] = problem
        if len(self.name) > 200:
            errors["name"] = "At most 200 characters."
        for field in ("name", "client_id", "deployment_id"):
            problem = one_line_error(field, getattr(self, field))
            if field not in errors and problem is not None:
                errors[field] = problem
        return errors


def add(session: Session, settings: Settings, data: PlatformInput) -> tuple[LtiPlatform, LtiDeployment]:
    """Register a platform (or add a deployment to one already registered with this issuer and
    client id). :class:`FormErrors` names each bad field."""
    errors = data.errors(settings)
    if errors:
        raise FormErrors(errors)
    issuer, client_id = data.issuer.strip(), data.client_id.strip()
    platform = session.scalars(
        select(LtiPlatform).where(LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id)
    ).first()
    if platform is None:
        platform = LtiPlatform(issuer=issuer, client_id=client_id, name=data.name.strip())
        session.add(platform)
    platform.auth_url, platform.token_url = data.auth_url.strip(), data.token_url.strip()
    platform.jwks_url = data.jwks_url.strip()
    if data.name.strip():
        platform.name = data.name.strip()
    if data.lms_url.strip():
        platform.lms_url = data.lms_url.strip()
    session.flush()
    deployment_id = data.deployment_id.strip()
    deployment = deployment_of(session, platform, deployment_id)
    if deployment is None:
        deployment = LtiDeployment(platform_id=platform.id, deployment_id=deployment_id)
        try:
            with session.begin_nested():
                session.add(deployment)
                session.flush()
        except IntegrityError:  # registered concurrently: the same row
            deployment = deployment_of(session, platform, deployment_id)
            assert deployment is not None
    return platform, deployment


def deployment_of(session: Session, platform: LtiPlatform, deployment_id: str) -> LtiDeployment | None:
    return session.scalars(
        select(LtiDeployment).where(
            LtiDeployment.platform_id == platform.id, LtiDeployment.deployment_id == deployment_id
        )
    ).first()


def find(session: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The platform of an issuer (and client id, when the request names one)."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id:
        query = query.where(LtiPlatform.client_id == client_id)
    found = list(session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None


def get(session: Session, platform_id: int) -> LtiPlatform:
    platform = session.get(LtiPlatform, platform_id)
    if platform is None:
        raise NotFound(f"There is no LTI platform #{platform_id}.")
    return platform


@dataclass(frozen=True)
class PlatformRow:
    platform: LtiPlatform
    deployments: list[str]


def listing(session: Session) -> list[PlatformRow]:
    platforms = list(session.scalars(select(LtiPlatform).order_by(LtiPlatform.id)))
    deployments: dict[int, list[str]] = {}
    for d in session.scalars(select(LtiDeployment).order_by(LtiDeployment.id)):
        deployments.setdefault(d.platform_id, []).append(d.deployment_id)
    return [PlatformRow(p, deployments.get(p.id, [])) for p in platforms]


def remove(session: Session, platform_id: int) -> LtiPlatform:
    """Forget a platform: its deployments, context links and grade queue go with it (accounts and
    courses stay)."""
    platform = get(session, platform_id)
    session.delete(platform)
    session.flush()
    return platform
