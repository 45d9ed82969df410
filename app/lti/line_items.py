"""One LMS line item per (assignment, context), made once.

The launch's AGS claim may name the line item (the platform made it, e.g. from a deep-linked
content item that asked for one); else the tool finds its own by ``resourceId`` among the
context's line items and creates it only if absent. The link is stored under a unique
(assignment, context) constraint, so a retry or a second launch reuses it.
"""

from __future__ import annotations

import logging

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.courses.models import Assignment
from app.kit.db import release_connection
from app.lti import claims, keys
from app.lti.launch import Launch
from app.lti.models import LtiContext, LtiLineItem
from app.lti.services import Caller, ServiceError, find_or_create_line_item

log = logging.getLogger(__name__)


def resource_id(assignment: Assignment) -> str:
    return f"torchdrill-assignment-{assignment.id}"


def existing(session: Session, assignment_id: int, context_id: int) -> LtiLineItem | None:
    return session.scalars(
        select(LtiLineItem).where(
            LtiLineItem.assignment_id == assignment_id, LtiLineItem.context_link_id == context_id
        )
    ).first()


def ensure(
    session: Session, secret_key: str, launch: Launch, context: LtiContext, assignment: Assignment
) -> LtiLineItem | None:
    """The assignment's line item in the launch's context (None: the platform offers no AGS, or
    could not be reached now — the next launch tries again)."""
    row = existing(session, assignment.id, context.id)
    if row is not None:
        return row
    ags = launch.claim(claims.AGS_ENDPOINT)
    raw_scopes, raw_url = ags.get("scope"), ags.get("lineitem")
    scopes: list[str] = [str(s) for s in raw_scopes] if isinstance(raw_scopes, list) else []
    url: str | None = raw_url if isinstance(raw_url, str) else None
    if url is None:
        if claims.SCOPE_LINEITEM not in scopes or not context.lineitems_url:
            return None
        platform = launch.platform
        caller = Caller(
            platform.id, platform.client_id, platform.token_url, keys.signing_key(session, secret_key)
        )
        link_id = launch.claim(claims.RESOURCE_LINK).get("id")
        # The launch is verified and its rows are final: commit them before calling the platform,
        # so no write lock (SQLite) or open transaction waits on the network.
        release_connection(session)
        try:
            url = find_or_create_line_item(
                caller,
                context.lineitems_url,
                resource_id(assignment),
                assignment.title,
                str(link_id) if link_id else None,
            )
        except ServiceError as exc:
            log.warning("LTI line item for assignment %s not made now: %s", assignment.id, exc)
            return None
    row = LtiLineItem(assignment_id=assignment.id, context_link_id=context.id, url=url[:1000])
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:  # another launch stored it first: the same line item
        return existing(session, assignment.id, context.id)
    if assignment.lti_line_item_id is None:  # the older single column names the first one
        assignment.lti_line_item_id = url[:255]
    return row
