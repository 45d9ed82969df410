"""The admin's LTI page (``/admin/lti``): register an LMS platform (the values the LMS shows),
see the values to paste into the LMS, remove a platform, rotate the tool's signing key."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from app.accounts.deps import AdminUser
from app.kit.errors import FormErrors
from app.kit.links import absolute_url
from app.kit.settings import Settings
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, render
from app.lti import keys, platforms

router = APIRouter(prefix="/admin/lti", tags=["admin"])

NOTICE_KEY = "lti_notice"
Field = Annotated[str, Form(max_length=1000)]


def tool_urls(settings: Settings) -> dict[str, str]:
    """What an LMS administrator pastes into the LMS (docs/courses.md lists the same)."""
    return {
        "login": absolute_url(settings, "/lti/login"),
        "launch": absolute_url(settings, "/lti/launch"),
        "jwks": absolute_url(settings, "/lti/jwks"),
        "deep_link": absolute_url(settings, "/lti/launch"),
    }


def _page(
    request: Request,
    session: SessionDep,
    settings: Settings,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Any:
    context = {
        "rows": platforms.listing(session),
        "urls": tool_urls(settings),
        "values": values or {},
        "errors": errors or {},
        "notice": request.session.pop(NOTICE_KEY, None),
        "development": settings.env == "development",
    }
    return render(request, "lti/admin.html", context, status_code=status)


@router.get("")
def admin_lti(request: Request, session: SessionDep, settings: SettingsDep, admin: AdminUser) -> Any:
    return _page(request, session, settings)


@router.post("", dependencies=[CsrfProtected])
def add_platform(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    admin: AdminUser,
    issuer: Field = "",
    client_id: Field = "",
    deployment_id: Field = "",
    auth_url: Field = "",
    token_url: Field = "",
    jwks_url: Field = "",
    name: Field = "",
    lms_url: Field = "",
) -> Any:
    data = platforms.PlatformInput(
        issuer, client_id, deployment_id, auth_url, token_url, jwks_url, name, lms_url
    )
    try:
        platform, deployment = platforms.add(session, settings, data)
    except FormErrors as exc:
        return _page(request, session, settings, values=vars(data), errors=exc.errors, status=422)
    request.session[NOTICE_KEY] = f"Registered {platform.issuer} (deployment {deployment.deployment_id})."
    return RedirectResponse("/admin/lti", status_code=303)


@router.post("/{platform_id}/remove", dependencies=[CsrfProtected])
def remove_platform(request: Request, session: SessionDep, admin: AdminUser, platform_id: int) -> Any:
    platform = platforms.remove(session, platform_id)
    request.session[NOTICE_KEY] = f"Removed {platform.issuer}: its launches and grade passback stop."
    return RedirectResponse("/admin/lti", status_code=303)


@router.post("/keys/rotate", dependencies=[CsrfProtected])
def rotate_key(request: Request, session: SessionDep, settings: SettingsDep, admin: AdminUser) -> Any:
    row = keys.rotate(session, settings.secret_key)
    request.session[NOTICE_KEY] = f"New signing key {row.kid}; the previous one stays published for 7 days."
    return RedirectResponse("/admin/lti", status_code=303)
