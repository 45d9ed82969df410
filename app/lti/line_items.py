"""One LMS line item per (assignment, context), made once.

The launch's AGS claim may name the line item (the platform made it, e.g. from a deep-linked
content item that asked for one); else the tool finds its own by ``resourceId`` among the
context's line items and creates it only if absent. The link is stored under a unique
(assignment, context) constraint, so a retry or a second launch reuses it.

When the platform cannot be reached during the launch, the row is stored with an empty ``url``
(wanted, not made): scores wait on it, and the passback sweep (:func:`create_due`) makes the
column in the background — found-or-created, so never twice — with back-off between tries.
Several processes may sweep: each row is claimed by one (``retry_at`` moves a lease ahead, under
``FOR UPDATE SKIP LOCKED`` on PostgreSQL and a conditional ``UPDATE`` everywhere).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.courses.models import Assignment
from app.kit.db import Database, release_connection, utcnow
from app.lti import claims, keys
from app.lti.launch import Launch
from app.lti.models import LtiContext, LtiDeployment, LtiLineItem, LtiPlatform, LtiResourceLink
from app.lti.services import Caller, ServiceError, find_or_create_line_item

log = logging.getLogger(__name__)

NOT_MADE = ""  # the url of a line item wanted but not made yet
CLAIM_LEASE = timedelta(minutes=5)
MAX_DELAY = timedelta(hours=6)


def resource_id(assignment: Assignment) -> str:
    return resource_id_of(assignment.id)


def resource_id_of(assignment_id: int) -> str:
    return f"torchdrill-assignment-{assignment_id}"


def existing(session: Session, assignment_id: int, context_id: int) -> LtiLineItem | None:
    return session.scalars(
        select(LtiLineItem).where(
            LtiLineItem.assignment_id == assignment_id, LtiLineItem.context_link_id == context_id
        )
    ).first()


def ensure(
    session: Session, secret_key: str, launch: Launch, context: LtiContext, assignment: Assignment
) -> LtiLineItem | None:
    """The assignment's line item in the launch's context (None: the platform offers no line-item
    service). If the platform could not be reached now, the row is stored with an empty ``url``
    and :func:`create_due` makes the column in the background."""
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
            url, error = NOT_MADE, str(exc)[:1000]
        else:
            error = ""
    row = LtiLineItem(
        assignment_id=assignment.id,
        context_link_id=context.id,
        url=url[:1000],
        attempts=1 if error else 0,
        last_error=error,
        retry_at=utcnow() + backoff(1) if error else None,
    )
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:  # another launch stored it first: the same line item
        return existing(session, assignment.id, context.id)
    if url and assignment.lti_line_item_id is None:  # the older single column names the first one
        assignment.lti_line_item_id = url[:255]
    return row


def backoff(attempts: int) -> timedelta:
    return min(timedelta(minutes=2 ** max(0, attempts - 1)), MAX_DELAY)


def _claim(session: Session, now: datetime) -> LtiLineItem | None:
    """The next line item to make, claimed for this sweep (its ``retry_at`` a lease ahead)."""
    due = (LtiLineItem.url == NOT_MADE) & or_(LtiLineItem.retry_at.is_(None), LtiLineItem.retry_at <= now)
    for _ in range(5):
        row = session.execute(
            select(LtiLineItem.id, LtiLineItem.retry_at)
            .where(due)
            .order_by(LtiLineItem.id)
            .limit(1)
            .with_for_update(skip_locked=True)
        ).first()
        if row is None:
            return None
        same = (
            LtiLineItem.retry_at.is_(None) if row.retry_at is None else LtiLineItem.retry_at == row.retry_at
        )
        claimed = session.execute(
            update(LtiLineItem)
            .where(LtiLineItem.id == row.id, LtiLineItem.url == NOT_MADE, same)
            .values(retry_at=now + CLAIM_LEASE)
            .execution_options(synchronize_session=False)
        )
        if getattr(claimed, "rowcount", 0) == 1:
            return session.get(LtiLineItem, row.id)
    return None


def _what_to_make(session: Session, secret_key: str, row: LtiLineItem) -> tuple[Caller, str, str, str | None]:
    context = session.get(LtiContext, row.context_link_id)
    assignment = session.get(Assignment, row.assignment_id)
    assert context is not None and assignment is not None
    deployment = session.get(LtiDeployment, context.deployment_id)
    assert deployment is not None
    platform = session.get(LtiPlatform, deployment.platform_id)
    assert platform is not None
    link_id = session.scalar(
        select(LtiResourceLink.resource_link_id)
        .where(LtiResourceLink.context_link_id == context.id, LtiResourceLink.assignment_id == assignment.id)
        .order_by(LtiResourceLink.id)
        .limit(1)
    )
    caller = Caller(
        platform.id, platform.client_id, platform.token_url, keys.signing_key(session, secret_key)
    )
    return caller, context.lineitems_url or "", assignment.title, link_id


def create_due(db: Database, secret_key: str, now: datetime | None = None, limit: int = 20) -> int:
    """Make the line items a launch could not (found first, so never twice); returns how many
    were made. Scores waiting on them are sent by the same sweep right after."""
    now = now or utcnow()
    made = 0
    for _ in range(limit):
        with db.transaction() as session:
            row = _claim(session, now)
            if row is None:
                break
            row_id, attempts, assignment_id = row.id, row.attempts, row.assignment_id
            caller, lineitems_url, title, link_id = _what_to_make(session, secret_key, row)
        error = ""
        url = ""
        if not lineitems_url:
            error = "the LMS context offers no line-item service"
        else:
            try:
                url = find_or_create_line_item(
                    caller, lineitems_url, resource_id_of(assignment_id), title, link_id
                )
            except ServiceError as exc:
                error = str(exc)[:1000]
        with db.transaction() as session:
            values: dict[str, object] = {"attempts": attempts + 1, "last_error": error}
            if error:
                values["retry_at"] = max(now, utcnow()) + backoff(attempts + 1)
                log.warning("LTI line item %s not made (attempt %d): %s", row_id, attempts + 1, error)
            else:
                values |= {"url": url[:1000], "retry_at": None}
                made += 1
                assignment = session.get(Assignment, assignment_id)
                if assignment is not None and assignment.lti_line_item_id is None:
                    assignment.lti_line_item_id = url[:255]
            session.execute(update(LtiLineItem).where(LtiLineItem.id == row_id).values(**values))
    return made
