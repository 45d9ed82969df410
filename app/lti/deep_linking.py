"""Deep linking: an instructor picks an assignment or a problem in our page; it goes back to the
LMS as an ``ltiResourceLink`` content item inside a JWT signed with the tool's current key, posted
by the browser to the platform's ``deep_link_return_url``.

The request's settings (return URL, opaque ``data``) wait in the signed session cookie between the
launch and the pick. Picking an assignment links the LMS context to its course when the context
has no course yet (that is how several LMS courses come to share one Torchdrill course); the
content item asks the platform for a line item (score out of 100) tagged with the assignment.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from joserfc import jwt
from sqlalchemy.orm import Session

from app.courses.models import Assignment
from app.kit.errors import InvalidInput
from app.lti import claims, keys
from app.lti.keys import ALGORITHM
from app.lti.launch import Launch, LaunchRefused
from app.lti.line_items import resource_id
from app.lti.models import LtiPlatform
from app.problems.models import Problem

SESSION_KEY = "lti_deep_link"


def pending_from(launch: Launch) -> dict[str, Any]:
    """What the picker needs later, kept in the signed session."""
    dl = launch.claim(claims.DL_SETTINGS)
    return_url = dl.get("deep_link_return_url")
    if not isinstance(return_url, str) or not return_url.startswith(("https://", "http://")):
        raise LaunchRefused("the deep linking request has no return URL.")
    accepted = dl.get("accept_types")
    if isinstance(accepted, list) and "ltiResourceLink" not in accepted:
        raise LaunchRefused("the LMS accepts no LTI resource links here (accept_types).")
    context = launch.claim(claims.CONTEXT)
    return {
        "platform_id": launch.platform.id,
        "deployment_id": launch.deployment.deployment_id,
        "return_url": return_url,
        "data": dl.get("data") if isinstance(dl.get("data"), str) else None,
        "context_id": context.get("id") if isinstance(context.get("id"), str) else None,
        "context_title": str(context.get("title") or ""),
    }


@dataclass(frozen=True)
class Reply:
    return_url: str
    jwt: str
    title: str


def content_item(
    launch_url: str, *, assignment: Assignment | None = None, problem: Problem | None = None
) -> dict[str, Any]:
    if assignment is not None:
        return {
            "type": "ltiResourceLink",
            "title": assignment.title,
            "url": launch_url,
            "custom": {"assignment": str(assignment.id)},
            "lineItem": {
                "scoreMaximum": 100,
                "label": assignment.title,
                "resourceId": resource_id(assignment),
                "tag": "torchdrill",
            },
        }
    if problem is not None:
        return {
            "type": "ltiResourceLink",
            "title": problem.title,
            "url": launch_url,
            "custom": {"problem": problem.slug},
        }
    raise InvalidInput("Pick an assignment or a problem.")


def reply(session: Session, secret_key: str, pending: dict[str, Any], item: dict[str, Any]) -> Reply:
    platform = session.get(LtiPlatform, int(pending["platform_id"]))
    if platform is None:
        raise InvalidInput("The LMS that asked for this link is no longer registered.")
    row = keys.current(session, secret_key)
    now = int(time.time())
    body: dict[str, Any] = {
        "iss": platform.client_id,
        "aud": [platform.issuer],
        "azp": platform.client_id,
        "iat": now,
        "exp": now + 600,
        "nonce": secrets.token_urlsafe(16),
        claims.MESSAGE_TYPE: claims.DEEP_LINKING_RESPONSE,
        claims.VERSION: claims.LTI_VERSION,
        claims.DEPLOYMENT_ID: pending["deployment_id"],
        claims.DL_CONTENT_ITEMS: [item],
    }
    if pending.get("data"):
        body[claims.DL_DATA] = pending["data"]
    token = jwt.encode(
        {"alg": ALGORITHM, "kid": row.kid, "typ": "JWT"}, body, keys.private_key(row, secret_key)
    )
    return Reply(str(pending["return_url"]), token, str(item.get("title", "")))
