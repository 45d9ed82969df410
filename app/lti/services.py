"""Calls to the platform's services (LTI Advantage): an OAuth2 client-credentials token obtained
with a JWT assertion signed by the tool's current key, then AGS line items and scores and the NRPS
membership list. Tokens are cached per platform and scope set until shortly before they expire.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import httpx
from joserfc import jwt
from joserfc.jwk import RSAKey

from app.lti import claims
from app.lti.keys import ALGORITHM

TIMEOUT_S = 10.0
MAX_PAGES = 50


class ServiceError(Exception):
    """The platform refused or could not be reached; the message says what happened."""


@dataclass(frozen=True)
class Caller:
    """Who calls: the platform's client id and token URL, and the tool's signing key."""

    platform_id: int
    client_id: str
    token_url: str
    key: RSAKey


_tokens: dict[tuple[int, str], tuple[float, str]] = {}
_tokens_lock = threading.Lock()


def forget_tokens() -> None:
    with _tokens_lock:
        _tokens.clear()


def _assertion(caller: Caller) -> str:
    now = int(time.time())
    body = {
        "iss": caller.client_id,
        "sub": caller.client_id,
        "aud": caller.token_url,
        "iat": now,
        "exp": now + 300,
        "jti": uuid.uuid4().hex,
    }
    return jwt.encode({"alg": ALGORITHM, "kid": caller.key.kid or "", "typ": "JWT"}, body, caller.key)


def access_token(caller: Caller, scopes: tuple[str, ...]) -> str:
    key = (caller.platform_id, caller.token_url + " " + " ".join(sorted(scopes)))
    with _tokens_lock:
        cached = _tokens.get(key)
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]
    form = {
        "grant_type": "client_credentials",
        "client_assertion_type": claims.CLIENT_ASSERTION_TYPE,
        "client_assertion": _assertion(caller),
        "scope": " ".join(sorted(scopes)),
    }
    try:
        response = httpx.post(caller.token_url, data=form, timeout=TIMEOUT_S)
    except httpx.HTTPError as exc:
        raise ServiceError(f"the token endpoint could not be reached ({type(exc).__name__})") from exc
    if response.status_code != 200:
        raise ServiceError(f"the token endpoint answered {response.status_code}: {response.text[:200]}")
    try:
        body = response.json()
        token = str(body["access_token"])
        expires_in = float(body.get("expires_in", 3600))
    except (ValueError, KeyError, TypeError) as exc:
        raise ServiceError("the token endpoint's answer is not a token") from exc
    with _tokens_lock:
        _tokens[key] = (time.monotonic() + max(0.0, expires_in - 30), token)
    return token


def _request(
    caller: Caller,
    scopes: tuple[str, ...],
    method: str,
    url: str,
    *,
    accept: str,
    json_body: dict[str, Any] | None = None,
    content_type: str | None = None,
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {access_token(caller, scopes)}", "Accept": accept}
    content = None
    if json_body is not None:
        headers["Content-Type"] = content_type or "application/json"
        content = json.dumps(json_body).encode()
    try:
        response = httpx.request(method, url, headers=headers, content=content, timeout=TIMEOUT_S)
    except httpx.HTTPError as exc:
        raise ServiceError(f"{url} could not be reached ({type(exc).__name__})") from exc
    if response.status_code >= 400:
        raise ServiceError(f"{method} {url} answered {response.status_code}: {response.text[:200]}")
    return response


def _with_query(url: str, **query: str) -> str:
    parts = urlsplit(url)
    extra = urlencode(query)
    return urlunsplit(parts._replace(query=f"{parts.query}&{extra}" if parts.query else extra))


def find_or_create_line_item(
    caller: Caller, lineitems_url: str, resource_id: str, label: str, resource_link_id: str | None
) -> str:
    """The URL of the line item tagged ``resource_id`` in the context: found first, created only
    when the platform has none (so a retry, or two launches at once, never make a second)."""
    scopes = (claims.SCOPE_LINEITEM,)
    found = _request(
        caller,
        scopes,
        "GET",
        _with_query(lineitems_url, resource_id=resource_id),
        accept=claims.LINEITEMS_MEDIA,
    ).json()
    for item in found if isinstance(found, list) else []:
        if (
            isinstance(item, dict)
            and item.get("resourceId") == resource_id
            and isinstance(item.get("id"), str)
        ):
            return str(item["id"])
    body: dict[str, Any] = {
        "scoreMaximum": 100,
        "label": label[:255] or resource_id,
        "resourceId": resource_id,
        "tag": "torchdrill",
    }
    if resource_link_id:
        body["resourceLinkId"] = resource_link_id
    created = _request(
        caller,
        scopes,
        "POST",
        lineitems_url,
        accept=claims.LINEITEM_MEDIA,
        json_body=body,
        content_type=claims.LINEITEM_MEDIA,
    ).json()
    if not isinstance(created, dict) or not isinstance(created.get("id"), str):
        raise ServiceError("the platform created a line item without an id")
    return str(created["id"])


def post_score(caller: Caller, line_item_url: str, user_sub: str, percent: float, timestamp: str) -> None:
    parts = urlsplit(line_item_url)
    scores_url = urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))
    body = {
        "userId": user_sub,
        "scoreGiven": round(percent, 2),
        "scoreMaximum": 100,
        "activityProgress": "Completed" if percent > 0 else "Submitted",
        "gradingProgress": "FullyGraded",
        "timestamp": timestamp,
    }
    _request(
        caller,
        (claims.SCOPE_SCORE,),
        "POST",
        scores_url,
        accept="application/json",
        json_body=body,
        content_type=claims.SCORE_MEDIA,
    )


def memberships(caller: Caller, url: str) -> list[dict[str, Any]]:
    """Every member of the context (the ``next`` links followed)."""
    members: list[dict[str, Any]] = []
    next_url: str | None = url
    for _ in range(MAX_PAGES):
        if next_url is None:
            break
        response = _request(caller, (claims.SCOPE_NRPS,), "GET", next_url, accept=claims.MEMBERSHIPS_MEDIA)
        body = response.json()
        members.extend(m for m in body.get("members", []) if isinstance(m, dict))
        link = response.links.get("next")
        next_url = link.get("url") if link else None
    return members
