"""An LMS shows the tool in an iframe (Canvas and Moodle do by default): who may frame what.

Only the registered platform's origins (its issuer's, its authorization endpoint's and the LMS
address it was registered with, if any) may frame
the tool, and only where a launch from it goes: the login and launch responses themselves (this
response only), then every page of the session the launch signed in (the origins are kept in the
session). ``app.kit.headers`` writes them into ``frame-ancestors`` — never ``*`` — and gives the
framed session's cookies ``SameSite=None`` when they are ``Secure`` (https).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request

from app.kit.headers import FRAME_ANCESTORS
from app.lti import claims
from app.lti.launch import Launch
from app.lti.models import LtiPlatform


def origin_of(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def platform_origins(platform: LtiPlatform) -> list[str]:
    origins = [origin_of(platform.issuer), origin_of(platform.auth_url), origin_of(platform.lms_url or "")]
    return list(dict.fromkeys(o for o in origins if o))


def allow_for_response(request: Request, platform: LtiPlatform) -> None:
    setattr(request.state, FRAME_ANCESTORS, platform_origins(platform))


def allow_for_session(request: Request, launch: Launch) -> None:
    """After ``start_session``: the signed-in session's pages may be framed by this platform —
    its registered origins, and the origin of the ``return_url`` its signed launch names (Canvas
    shows tools on the school's own address, which is neither its issuer nor its auth URL)."""
    origins = platform_origins(launch.platform)
    return_url = launch.claim(claims.LAUNCH_PRESENTATION).get("return_url")
    extra = origin_of(return_url) if isinstance(return_url, str) else None
    if extra and (extra.startswith("https://") or all(o.startswith("http://") for o in origins)):
        origins.append(extra)
    request.session[FRAME_ANCESTORS] = list(dict.fromkeys(origins))
