"""The account page: progress, premium, sessions ("where you're signed in"), tokens, code
redemption and codes (staff), password change."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts import premium, service, sessions, tokens
from app.accounts.deps import CurrentUser, StaffUser, current_session, start_session
from app.accounts.models import User
from app.accounts.pages import safe_next
from app.courses import enrolment
from app.kit.db import utcnow
from app.kit.errors import FormErrors, InvalidInput
from app.kit.web import CsrfProtected, SessionDep, parse_int, render
from app.submissions import service as submissions
from app.submissions.progress_chart import progress_chart

router = APIRouter(tags=["accounts"])

NOTICE_KEY = "notice"
TOKENS_SHOWN = 50  # the account page lists this many tokens, newest first, then links the older ones


def _notice(request: Request, text: str) -> RedirectResponse:
    request.session[NOTICE_KEY] = text
    return RedirectResponse("/account", status_code=303)


def account_page(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    new_token: str | None = None,
    tokens_after: str | None = None,
    status_code: int = 200,
) -> Any:
    now = utcnow()
    token_page = tokens.page_of_tokens(session, user, tokens_after, TOKENS_SHOWN)
    this_session = current_session(request)
    context = {
        "user": user,
        "premium": premium.premium_status(user, now),
        "progress": submissions.progress(session, user),
        "chart": progress_chart(session, user.id),
        "tokens": token_page.items,
        "tokens_next": token_page.cursor,  # "Older tokens": /account?tokens_after=<cursor>
        "tokens_paged": tokens_after is not None,
        "token_scopes": tokens.SCOPES,
        "scope_meanings": tokens.SCOPE_MEANINGS,
        "default_scopes": tokens.default_scopes(user),
        "default_days": tokens.DEFAULT_DAYS,
        "now": now,
        "sessions": sessions.live(session, user, now),
        "this_session_id": this_session.id if this_session is not None else None,
        "codes": premium.list_codes(session, user) if user.is_staff else [],
        "courses": enrolment.my_courses(session, user),
        "new_token": new_token,
        "notice": request.session.pop(NOTICE_KEY, None),
        "errors": errors or {},
        "values": values or {},
    }
    return render(request, "accounts/account.html", context, status_code=status_code)


@router.get("/account")
def show(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    tokens_after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    return account_page(request, session, user, tokens_after=tokens_after or None)


@router.post("/account/tokens", dependencies=[CsrfProtected])
def create_token(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    name: Annotated[str, Form(max_length=200)] = "",
    scope: Annotated[list[str] | None, Form(max_length=len(tokens.SCOPES))] = None,
    expires_in_days: Annotated[str, Form(max_length=20)] = "",
) -> Any:
    """A new token with the scopes ticked (at least one) and a life in days."""
    now = utcnow()
    values = {"name": name, "expires_in_days": expires_in_days}
    try:
        if not scope:  # unticking everything must not mean "the default": every scope
            raise InvalidInput("Tick at least one scope.")
        expires_at = tokens.expiry_after(tokens.parse_days(expires_in_days), now)
        _token, plain = tokens.create_token(
            session, user, name or "web", now, scopes=scope, expires_at=expires_at
        )
    except InvalidInput as exc:
        errors = {"token": exc.detail}
        return account_page(request, session, user, errors=errors, values=values, status_code=400)
    # Shown on this response only: the token is never stored in plain text, nor put in the session.
    return account_page(request, session, user, new_token=plain, status_code=201)


@router.post("/account/tokens/{token_id}/revoke", dependencies=[CsrfProtected])
def revoke_token(request: Request, token_id: int, session: SessionDep, user: CurrentUser) -> Any:
    tokens.revoke_token(session, user, token_id, utcnow())
    return _notice(request, "The token was revoked; programs using it can no longer sign in.")


@router.post("/account/sessions/{session_id}/end", dependencies=[CsrfProtected])
def end_session(request: Request, session_id: int, session: SessionDep, user: CurrentUser) -> Any:
    """Sign out one browser from the list (this one too: then log in again)."""
    this = current_session(request)
    sessions.end_one(session, user, session_id, utcnow())
    if this is not None and this.id == session_id:
        request.session.clear()
        return RedirectResponse("/login", status_code=303)
    return _notice(request, "That session was ended: the browser is signed out.")


@router.post("/account/sessions/end-all", dependencies=[CsrfProtected])
def sign_out_everywhere(request: Request, session: SessionDep, user: CurrentUser) -> Any:
    """End every session of the account, this one included (tokens are left as they are)."""
    sessions.end_all(session, user.id, utcnow())
    request.session.clear()
    return RedirectResponse("/login", status_code=303)


@router.post("/account/redeem", dependencies=[CsrfProtected])
def redeem(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    code: Annotated[str, Form(max_length=100)] = "",
    next: Annotated[str, Form(max_length=500)] = "",
) -> Any:
    """Redeem a code; from a locked problem's unlock card (``next``) the learner lands back on it."""
    try:
        grant = premium.redeem_code(session, user, code, utcnow())
    except FormErrors as exc:
        return account_page(request, session, user, errors=exc.errors, values={"code": code}, status_code=400)
    if next:  # the unlocked problem page is the confirmation
        return RedirectResponse(safe_next(next), status_code=303)
    return _notice(request, f"Premium unlocked until {grant.expires_at:%Y-%m-%d %H:%M} UTC.")


@router.post("/account/password", dependencies=[CsrfProtected])
def change_password(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    current_password: Annotated[str, Form()] = "",
    new_password: Annotated[str, Form()] = "",
) -> Any:
    try:
        service.change_password(session, user, current_password, new_password, utcnow())
    except FormErrors as exc:
        return account_page(request, session, user, errors=exc.errors, status_code=400)
    start_session(request, session, user)  # this browser stays signed in, with a new session id
    return _notice(
        request,
        "Your password was changed. Every other browser was signed out and your API tokens were "
        "revoked: make a new token for the command line and scripts.",
    )


@router.post("/account/codes", dependencies=[CsrfProtected])
def create_code(
    request: Request,
    session: SessionDep,
    user: StaffUser,
    uses: Annotated[str, Form(max_length=20)] = "",
    days: Annotated[str, Form(max_length=20)] = "",
    label: Annotated[str, Form(max_length=400)] = "",
) -> Any:
    errors: dict[str, str] = {}
    values = {"uses": uses, "days": days, "label": label}
    n_uses, n_days = parse_int(uses, "uses", errors), parse_int(days, "days", errors)
    try:
        if errors:
            raise FormErrors(errors)
        code = premium.create_code(session, user, n_uses, n_days, label, utcnow())
    except FormErrors as exc:
        return account_page(request, session, user, errors=exc.errors, values=values, status_code=400)
    return _notice(request, f"Code {code.code} created: {code.max_uses} uses, {code.days} days each.")
