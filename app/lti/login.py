"""OIDC third-party login initiation (``/lti/login``, GET or POST): the platform says who wants to
launch; we answer with a redirect to its authorization endpoint carrying a fresh state and nonce.

The state is stored (used once by the launch, ten minutes at most) and set in a cookie named after
it, so the launch must come back to the browser that started the login. In an LMS iframe that
cookie may not travel (third-party cookies blocked): when the platform offers its client-side
storage (``lti_storage_target``, LTI Client Side postMessages), the login answers with a page that
first stores the state in the platform's frame (``lti.put_data``); the launch then reads it back
(``lti.get_data``) — see ``app.lti.pages`` and ``app/static/js/lti-storage.js``. The cookie is set
either way, as the fallback.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode, urlsplit

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.kit.settings import Settings
from app.lti import platforms
from app.lti.launch import STATE_COOKIE_PREFIX, LaunchRefused
from app.lti.models import LtiLogin, LtiNonce, LtiPlatform

LOGIN_TTL = timedelta(minutes=10)


@dataclass(frozen=True)
class LoginRedirect:
    url: str
    state: str
    max_age_s: int
    platform: LtiPlatform


def start(
    session: Session,
    settings: Settings,
    launch_url: str,
    params: dict[str, str],
    now: datetime,
) -> LoginRedirect:
    issuer = params.get("iss", "")
    login_hint = params.get("login_hint", "")
    target = params.get("target_link_uri", "")
    if not issuer or not login_hint or not target:
        raise LaunchRefused("the login request lacks iss, login_hint or target_link_uri.")
    platform = platforms.find(session, issuer, params.get("client_id") or None)
    if platform is None:
        raise LaunchRefused("the issuer (and client id) is not a registered platform.")
    deployment_id = params.get("lti_deployment_id")
    if deployment_id and platforms.deployment_of(session, platform, deployment_id) is None:
        raise LaunchRefused("the deployment id is not registered for this platform.")
    ours, theirs = urlsplit(launch_url), urlsplit(target)
    if (theirs.scheme, theirs.netloc) != (ours.scheme, ours.netloc):
        raise LaunchRefused("the target link is not on this site.")
    # Expired logins and nonces are forgotten as new ones come (no sweeper needed).
    session.execute(delete(LtiLogin).where(LtiLogin.expires_at < now))
    session.execute(delete(LtiNonce).where(LtiNonce.expires_at < now))
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    session.add(LtiLogin(state=state, nonce=nonce, platform_id=platform.id, expires_at=now + LOGIN_TTL))
    session.flush()
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": launch_url,
        "login_hint": login_hint,
        "state": state,
        "nonce": nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if "?" in platform.auth_url else "?"
    return LoginRedirect(
        platform.auth_url + separator + urlencode(query), state, int(LOGIN_TTL.total_seconds()), platform
    )


def platform_of_state(session: Session, state: str, now: datetime) -> LtiPlatform | None:
    """The platform an unexpired, unused login was started for (nothing is consumed)."""
    login = session.scalars(select(LtiLogin).where(LtiLogin.state == state)).first()
    if login is None or login.expires_at <= now or login.used_at is not None:
        return None
    return session.get(LtiPlatform, login.platform_id)


def cookie_name(state: str) -> str:
    return STATE_COOKIE_PREFIX + state
