"""Reporting a post and working through the queue: hide, unhide, dismiss.

A report names a post by its kind and id; the adapter of its domain (:mod:`app.moderation.registry`)
says what the post is. The reporter must be able to read the post (its problem's gate; a hidden or
deleted post answers 404, as one that does not exist), and not be its author. One report per user
and post; reporting has its own rate limit. The queue holds the reports a moderator may act on
(:mod:`app.moderation.access`); one action answers every report on the same post.
"""

from __future__ import annotations

import logging
from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.discussion.views import author_name
from app.kit.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.kit.limits import Quota
from app.kit.paging import decode_cursor, encode_cursor, next_url
from app.kit.user_text import check_user_text
from app.moderation import access, registry, repository
from app.moderation.models import DISMISSED, HIDDEN, OPEN, STATUSES, ModerationReport
from app.moderation.targets import TargetInfo
from app.problems import service as problems

log = logging.getLogger(__name__)

MAX_REASON = 1000
ACTIONS = ("hide", "unhide", "dismiss")
PAGE_SIZE = 50


class TargetView(BaseModel):
    kind: str
    id: int
    problem: str = Field(description="The problem's slug")
    excerpt: str = Field(description="Plain text (never HTML)")
    url: str
    hidden: bool


class ModerationReportView(BaseModel):
    id: int
    kind: str
    target_id: int
    reason: str = Field(description="Plain text (never HTML)")
    reporter: str
    status: str
    created_at: datetime
    resolved_at: datetime | None
    target: TargetView | None = Field(description="The post (null once its author deleted it)")


class ModerationQueue(BaseModel):
    items: list[ModerationReportView]
    next: str | None


def _describe(session: Session, kind: str, target_id: int) -> TargetInfo | None:
    target = registry.target_for(kind)
    return target.describe(session, kind, target_id) if target is not None else None


def report(
    session: Session,
    user: User,
    kind: str,
    target_id: int,
    reason: str,
    now: datetime,
    limiter: Quota,
) -> ModerationReport:
    if kind not in registry.kinds():
        raise InvalidInput(f"kind must be one of {', '.join(registry.kinds())}.")
    text = check_user_text(reason, "The reason", max_chars=MAX_REASON)
    info = _describe(session, kind, target_id)
    missing = NotFound(f"There is no {kind} #{target_id}.")
    if info is None or info.hidden:
        raise missing
    problem = repository.problem_by_slug(session, info.problem_slug)
    if problem is None:
        raise missing
    try:  # the reporter reads the post: the problem's gate
        problems.get_published(session, problem.slug, user, now, tags=False)
    except NotFound:
        raise missing from None
    problems.require_access(problem, user, now)
    if info.author_id == user.id:
        raise InvalidInput("This is your own post: edit or delete it instead.")
    limiter.hit(user.id)
    if repository.existing(session, kind, target_id, user.id) is not None:
        raise Conflict(f"You already reported this {kind}.")
    try:
        with session.begin_nested():
            row = repository.add(
                session,
                ModerationReport(
                    kind=kind,
                    target_id=target_id,
                    problem_id=problem.id,
                    reporter_id=user.id,
                    reason=text,
                    status=OPEN,
                    created_at=now,
                ),
            )
    except IntegrityError:
        raise Conflict(f"You already reported this {kind}.") from None
    log.info("moderation report %s on %s %s by user %s", row.id, kind, target_id, user.id)
    return row


def _require_moderator(user: User) -> None:
    if not user.is_staff:
        raise Forbidden("The moderation queue is for instructors and admins.")


def _describe_all(session: Session, rows: list[ModerationReport]) -> dict[tuple[str, int], TargetInfo]:
    """The posts of a queue page: by kind at once where the adapter can (``describe_many``)."""
    found: dict[tuple[str, int], TargetInfo] = {}
    for kind in {r.kind for r in rows}:
        ids = [r.target_id for r in rows if r.kind == kind]
        target = registry.target_for(kind)
        many = getattr(target, "describe_many", None)
        if many is not None:
            found.update({(kind, i): info for i, info in many(session, kind, ids).items()})
        else:
            for i in ids:
                info = _describe(session, kind, i)
                if info is not None:
                    found[(kind, i)] = info
    return found


def _views(session: Session, rows: list[ModerationReport]) -> list[ModerationReportView]:
    reporters = repository.users_by_ids(session, {r.reporter_id for r in rows})
    described = _describe_all(session, rows)
    out = []
    for r in rows:
        info = described.get((r.kind, r.target_id))
        target = None
        if info is not None:
            target = TargetView(
                kind=info.kind,
                id=info.id,
                problem=info.problem_slug,
                excerpt=info.excerpt,
                url=info.url,
                hidden=info.hidden,
            )
        out.append(
            ModerationReportView(
                id=r.id,
                kind=r.kind,
                target_id=r.target_id,
                reason=r.reason,
                reporter=author_name(reporters.get(r.reporter_id)),
                status=r.status,
                created_at=r.created_at,
                resolved_at=r.resolved_at,
                target=target,
            )
        )
    return out


def queue(
    session: Session,
    user: User,
    *,
    status: str = OPEN,
    after: str | None = None,
    limit: int = PAGE_SIZE,
    base: str = "/api/v1/moderation/reports",
) -> ModerationQueue:
    """The reports ``user`` moderates in ``status``, newest first (403 for anybody but staff)."""
    _require_moderator(user)
    if status not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}.")
    before = decode_cursor(after, (int,))[0] if after else None
    rows = list(repository.queue_page(session, status, access.scope(session, user), before, limit))
    more = len(rows) > limit
    rows = rows[:limit]
    cursor = encode_cursor((rows[-1].id,)) if more and rows else None
    return ModerationQueue(
        items=_views(session, rows), next=next_url(base, {"status": status, "limit": limit}, cursor)
    )


def _moderated(session: Session, user: User, report_id: int) -> ModerationReport:
    _require_moderator(user)
    row = repository.get(session, report_id)
    problem = repository.problem(session, row.problem_id) if row is not None else None
    if row is None or problem is None or not access.moderates(session, user, problem):
        raise NotFound(f"There is no report #{report_id} in your queue.")
    return row


def act(session: Session, user: User, report_id: int, action: str, now: datetime) -> ModerationReportView:
    """``hide`` the post (every open report on it is answered), ``unhide`` it, or ``dismiss`` the report."""
    if action not in ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}.")
    row = _moderated(session, user, report_id)
    target = registry.target_for(row.kind)
    if target is None:
        raise NotFound(f"There is no report #{report_id} in your queue.")
    if action == "hide":
        if target.describe(session, row.kind, row.target_id) is None:
            raise InvalidInput("Its author deleted this post: there is nothing to hide.")
        target.set_hidden(session, row.kind, row.target_id, True)
        repository.resolve_target(session, row.kind, row.target_id, (OPEN,), HIDDEN, user.id, now)
    elif action == "unhide":
        target.set_hidden(session, row.kind, row.target_id, False)
        repository.resolve_target(session, row.kind, row.target_id, (HIDDEN,), DISMISSED, user.id, now)
    else:
        if row.status != OPEN:
            raise InvalidInput(f"Report #{report_id} is {row.status} already.")
        row.status, row.resolved_by_id, row.resolved_at = DISMISSED, user.id, now
    session.flush()
    session.refresh(row)
    log.info(
        "moderation: %s on report %s (%s %s) by user %s", action, row.id, row.kind, row.target_id, user.id
    )
    return _views(session, [row])[0]
