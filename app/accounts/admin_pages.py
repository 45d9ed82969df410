"""The admin page: find users, change roles, grant and revoke Premium."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts import premium, service, two_factor
from app.accounts.deps import AdminUser
from app.accounts.models import ROLES, User
from app.accounts.reset_pages import get_mailer
from app.kit.db import utcnow
from app.kit.errors import FormErrors, InvalidInput, NotFound
from app.kit.paging import next_url
from app.kit.web import CsrfProtected, SessionDep, parse_int, render

router = APIRouter(prefix="/admin", tags=["admin"])

NOTICE_KEY = "admin_notice"


def _target(session: SessionDep, user_id: int) -> User:
    user = service.get_user(session, user_id)
    if user is None:
        raise NotFound(f"There is no user #{user_id}.")
    return user


def _back(request: Request, text: str, q: str) -> RedirectResponse:
    request.session[NOTICE_KEY] = text
    return RedirectResponse(f"/admin?q={quote(q)}" if q else "/admin", status_code=303)


def _page(
    request: Request,
    session: SessionDep,
    q: str,
    error: str | None = None,
    status: int = 200,
    after: str | None = None,
) -> Any:
    now = utcnow()
    found = service.list_users(session, q, after)
    users = [(u, premium.premium_status(u, now)) for u in found.items]
    more = next_url("/admin", {"q": q}, found.cursor)
    context = {"users": users, "q": q, "roles": ROLES, "error": error, "next_page": more,
               "paged": after is not None, "notice": request.session.pop(NOTICE_KEY, None)}  # fmt: skip
    return render(request, "accounts/admin.html", context, status_code=status)


@router.get("")
def admin_home(
    request: Request,
    session: SessionDep,
    admin: AdminUser,
    q: Annotated[str, Query(max_length=254)] = "",
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    """Users by email, a hundred a page (``after``: the cursor of the "Next users" link)."""
    return _page(request, session, q, after=after or None)


@router.post("/users/{user_id}/role", dependencies=[CsrfProtected])
def set_role(
    request: Request,
    user_id: int,
    session: SessionDep,
    admin: AdminUser,
    role: Annotated[str, Form(max_length=20)] = "",
    q: Annotated[str, Form(max_length=254)] = "",
) -> Any:
    user = _target(session, user_id)
    try:
        service.set_role(session, admin, user, role)
    except InvalidInput as exc:
        return _page(request, session, q, exc.detail, 400)
    return _back(request, f"{user.email} is now {role}.", q)


@router.post("/users/{user_id}/premium", dependencies=[CsrfProtected])
def grant_premium(
    request: Request,
    user_id: int,
    session: SessionDep,
    admin: AdminUser,
    days: Annotated[str, Form(max_length=20)] = "",
    q: Annotated[str, Form(max_length=254)] = "",
) -> Any:
    user = _target(session, user_id)
    errors: dict[str, str] = {}
    n_days = parse_int(days, "days", errors)
    try:
        if errors:
            raise FormErrors(errors)
        grant = premium.grant_premium(session, user, n_days, utcnow(), granted_by=admin)
    except (FormErrors, InvalidInput) as exc:
        return _page(request, session, q, f"Days: {exc.detail.removeprefix('days: ')}", 400)
    return _back(request, f"{user.email} has Premium until {grant.expires_at:%Y-%m-%d %H:%M} UTC.", q)


@router.post("/users/{user_id}/premium/revoke", dependencies=[CsrfProtected])
def revoke_premium(
    request: Request,
    user_id: int,
    session: SessionDep,
    admin: AdminUser,
    q: Annotated[str, Form(max_length=254)] = "",
) -> Any:
    user = _target(session, user_id)
    premium.revoke_premium(session, user, utcnow())
    return _back(request, f"Premium of {user.email} was revoked.", q)


@router.post("/users/{user_id}/two-factor/reset", dependencies=[CsrfProtected])
def reset_two_factor(
    request: Request,
    user_id: int,
    session: SessionDep,
    admin: AdminUser,
    q: Annotated[str, Form(max_length=254)] = "",
) -> Any:
    """For someone who lost both their phone and their recovery codes (audited in the log)."""
    user = _target(session, user_id)
    if not user.two_factor_on and user.totp_secret is None:
        return _page(request, session, q, f"{user.email} does not use two-factor sign-in.", 400)
    by = f"admin {admin.email} (user #{admin.id}) on the admin page"
    two_factor.reset(session, user, by, get_mailer(request, request.app.state.settings))
    return _back(request, f"Two-factor sign-in of {user.email} was reset; their password alone signs in.", q)
