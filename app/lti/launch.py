"""The launch at ``/lti/launch``: the platform's id_token, checked before anything is created.

Checked, in order: the login's state (issued by ``/lti/login``, bound to this browser by a cookie,
unexpired, used once), the issuer and client id (a registered platform), the signature (the
platform's JWKS, RS256 only — joserfc does the JOSE work), ``iss``, ``aud`` (our client id),
``azp`` (our client id whenever present, and required with several audiences), ``exp`` and
``iat`` (a minute's leeway), the ``nonce`` (the login's, and never seen before from this
platform), the deployment id (registered), and the message type and LTI version. Any failure is a
:class:`LaunchRefused` — a 400 page that says which check failed — and the request's transaction
rolls back, so a refused launch leaves no row behind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from joserfc import jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidKeyIdError,
    JoseError,
    MissingClaimError,
)
from joserfc.jws import extract_compact
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.kit.errors import AppError
from app.lti import claims, platform_keys, platforms
from app.lti.models import LtiDeployment, LtiLogin, LtiNonce, LtiPlatform

LEEWAY_S = 60
NONCE_KEPT = timedelta(hours=2)
STATE_COOKIE_PREFIX = "lti1p3-state-"


class LaunchRefused(AppError):
    status_code = 400
    code = "lti_launch_refused"
    default_detail = "The launch from your LMS could not be verified."

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"The launch from your LMS was refused: {reason} Open the link from the LMS again; "
            "if it keeps failing, tell your instructor or the site's administrator."
        )


@dataclass(frozen=True)
class Launch:
    """A verified launch: its platform, deployment and claims."""

    platform: LtiPlatform
    deployment: LtiDeployment
    claims: dict[str, Any]

    @property
    def message_type(self) -> str:
        return str(self.claims[claims.MESSAGE_TYPE])

    @property
    def sub(self) -> str:
        return str(self.claims.get("sub") or "")

    @property
    def roles(self) -> list[str]:
        roles = self.claims.get(claims.ROLES) or []
        return [str(r) for r in roles] if isinstance(roles, list) else []

    def claim(self, name: str) -> dict[str, Any]:
        value = self.claims.get(name)
        return value if isinstance(value, dict) else {}


def _peek(id_token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims before verification — only to find whose keys to verify with."""
    try:
        obj = extract_compact(id_token.encode("ascii"))
        body = json.loads(obj.payload)
    except (JoseError, ValueError, UnicodeError) as exc:
        raise LaunchRefused("the id_token is not a signed JWT.") from exc
    if not isinstance(body, dict):
        raise LaunchRefused("the id_token is not a signed JWT.")
    return dict(obj.protected), body


def _audiences(body: dict[str, Any]) -> list[str]:
    aud = body.get("aud")
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list) and all(isinstance(a, str) for a in aud):
        return list(aud)
    return []


def _platform_for(session: Session, body: dict[str, Any]) -> LtiPlatform:
    issuer = body.get("iss")
    if not isinstance(issuer, str) or not issuer:
        raise LaunchRefused("the id_token names no issuer.")
    candidates = list(session.scalars(select(LtiPlatform).where(LtiPlatform.issuer == issuer)))
    if not candidates:
        raise LaunchRefused("the issuer is not a registered platform.")
    audiences = _audiences(body)
    for platform in candidates:
        if platform.client_id in audiences:
            return platform
    raise LaunchRefused("the audience (aud) is not this tool's client id.")


def _verify(
    platform: LtiPlatform, id_token: str, kid: str | None, nonce: str, now: datetime
) -> dict[str, Any]:
    try:
        keys = platform_keys.platform_keys.get(platform.jwks_url, kid)
    except platform_keys.KeysUnavailable as exc:
        raise LaunchRefused(f"{exc}.") from exc
    try:
        token = jwt.decode(id_token, keys, algorithms=["RS256"])
    except (BadSignatureError, InvalidKeyIdError) as exc:
        raise LaunchRefused("the signature does not match the platform's keys.") from exc
    except JoseError as exc:
        raise LaunchRefused(f"the id_token could not be read ({exc.error}).") from exc
    registry = jwt.JWTClaimsRegistry(
        now=int(now.timestamp()),
        leeway=LEEWAY_S,
        iss={"essential": True, "value": platform.issuer},
        aud={"essential": True},
        exp={"essential": True},
        iat={"essential": True},
        nonce={"essential": True},
        sub={"essential": False},
    )
    try:
        registry.validate(token.claims)
    except ExpiredTokenError as exc:
        raise LaunchRefused("the id_token has expired.") from exc
    except MissingClaimError as exc:
        raise LaunchRefused(f"the id_token lacks a required claim ({exc.description}).") from exc
    except JoseError as exc:
        what = (
            "was issued in the future"
            if "iat" in str(exc.description) or "future" in str(exc.description)
            else (f"has an invalid claim ({exc.description})")
        )
        raise LaunchRefused(f"the id_token {what}.") from exc
    body = dict(token.claims)
    audiences = _audiences(body)
    if platform.client_id not in audiences:
        raise LaunchRefused("the audience (aud) is not this tool's client id.")
    azp = body.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != platform.client_id:
        raise LaunchRefused("the authorized party (azp) is not this tool's client id.")
    if body.get("nonce") != nonce:
        raise LaunchRefused("the nonce is not the one this login sent.")
    return body


def _consume_state(session: Session, state: str, cookie: str | None, now: datetime) -> LtiLogin:
    if not state or not cookie or cookie != state:
        raise LaunchRefused("the login state is missing or does not belong to this browser.")
    login = session.scalars(select(LtiLogin).where(LtiLogin.state == state)).first()
    if login is None or login.expires_at <= now:
        raise LaunchRefused("the login state is unknown or has expired.")
    used = session.execute(
        update(LtiLogin).where(LtiLogin.id == login.id, LtiLogin.used_at.is_(None)).values(used_at=now)
    )
    if getattr(used, "rowcount", 0) != 1:
        raise LaunchRefused("the login state was already used.")
    return login


def _consume_nonce(session: Session, platform: LtiPlatform, nonce: str, now: datetime) -> None:
    try:
        with session.begin_nested():
            session.add(LtiNonce(platform_id=platform.id, nonce=nonce[:255], expires_at=now + NONCE_KEPT))
            session.flush()
    except IntegrityError:
        raise LaunchRefused("the nonce was already used (a replayed launch).") from None


def verify(session: Session, id_token: str, state: str, state_cookie: str | None, now: datetime) -> Launch:
    """A verified :class:`Launch`, or :class:`LaunchRefused` naming the first check that failed."""
    if not id_token:
        raise LaunchRefused("the LMS sent no id_token.")
    header, unverified = _peek(id_token)
    platform = _platform_for(session, unverified)
    login = _consume_state(session, state, state_cookie, now)
    if login.platform_id != platform.id:
        raise LaunchRefused("the login state was started for another platform.")
    kid = header.get("kid")
    body = _verify(platform, id_token, kid if isinstance(kid, str) else None, login.nonce, now)
    _consume_nonce(session, platform, login.nonce, now)
    deployment_id = body.get(claims.DEPLOYMENT_ID)
    deployment = (
        platforms.deployment_of(session, platform, deployment_id) if isinstance(deployment_id, str) else None
    )
    if deployment is None:
        raise LaunchRefused("the deployment id is not registered for this platform.")
    if body.get(claims.MESSAGE_TYPE) not in claims.MESSAGE_TYPES:
        raise LaunchRefused("the message type is not one this tool handles.")
    if body.get(claims.VERSION) != claims.LTI_VERSION:
        raise LaunchRefused("the LTI version is not 1.3.0.")
    if not isinstance(body.get("sub"), str) or not body["sub"]:
        raise LaunchRefused("the launch names no user (sub); anonymous launches are not supported.")
    if body[claims.MESSAGE_TYPE] == claims.RESOURCE_LINK_REQUEST and not isinstance(
        (body.get(claims.RESOURCE_LINK) or {}).get("id")
        if isinstance(body.get(claims.RESOURCE_LINK), dict)
        else None,
        str,
    ):
        raise LaunchRefused("the resource link has no id.")
    return Launch(platform, deployment, body)
