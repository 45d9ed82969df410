"""Grade passback (AGS): which students' scores wait for which LMS line item, and sending them.

A verdict or an applied regrade only *marks* rows (:func:`mark_for_work`, :func:`mark_assignment`):
one row per (line item, student), set back to pending with a new ``marked_at``. :func:`send_due`
then computes each student's assignment score the way the gradebook does (``app.courses.scoring``:
late windows, extensions, applied regrades) and posts it. The network is never called inside a
transaction; each row is claimed by one sender first (scaled out, every process hears every
verdict), and a row marked again while its score was in flight stays pending. Failures back off
(1, 2, 4 … minutes, at most six hours); after ``MAX_ATTEMPTS`` the row is ``failed`` and shows as
such to the instructor until resent.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.courses import scoring
from app.courses.models import Assignment, AssignmentProblem, CourseMember
from app.kit.db import Database, utcnow
from app.lti import keys
from app.lti.models import (
    FAILED,
    PENDING,
    SENT,
    LtiContext,
    LtiDeployment,
    LtiGradeSync,
    LtiLineItem,
    LtiPlatform,
    LtiUserLink,
)
from app.lti.services import Caller, ServiceError, post_score

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
MAX_DELAY = timedelta(hours=6)
# A claimed row is not due for other senders this long (well over a token request and a post).
CLAIM_LEASE = timedelta(minutes=5)
CLAIM_TRIES = 5


def backoff(attempts: int) -> timedelta:
    return min(timedelta(minutes=2 ** max(0, attempts - 1)), MAX_DELAY)


def _linked_pairs(
    session: Session, line_item_ids: list[int], user_ids: list[int] | None
) -> list[tuple[int, int]]:
    """(line item id, user id) for students with an LMS identity on the line item's platform."""
    query = (
        select(LtiLineItem.id, LtiUserLink.user_id)
        .join(LtiContext, LtiContext.id == LtiLineItem.context_link_id)
        .join(LtiDeployment, LtiDeployment.id == LtiContext.deployment_id)
        .join(LtiPlatform, LtiPlatform.id == LtiDeployment.platform_id)
        .join(LtiUserLink, LtiUserLink.issuer == LtiPlatform.issuer)
        .join(
            CourseMember,
            (CourseMember.course_id == LtiContext.course_id) & (CourseMember.user_id == LtiUserLink.user_id),
        )
        .where(LtiLineItem.id.in_(line_item_ids), CourseMember.role == "student")
        .distinct()
    )
    if user_ids is not None:
        query = query.where(LtiUserLink.user_id.in_(user_ids))
    return [(int(a), int(b)) for a, b in session.execute(query)]


def _mark(session: Session, pairs: list[tuple[int, int]], now: datetime) -> int:
    for line_item_id, user_id in pairs:
        row = session.scalars(
            select(LtiGradeSync).where(
                LtiGradeSync.line_item_id == line_item_id, LtiGradeSync.user_id == user_id
            )
        ).first()
        if row is None:
            session.add(
                LtiGradeSync(
                    line_item_id=line_item_id,
                    user_id=user_id,
                    status=PENDING,
                    next_attempt_at=now,
                    marked_at=now,
                    last_error="",
                )
            )
        else:
            row.status, row.attempts, row.next_attempt_at, row.marked_at = PENDING, 0, now, now
    session.flush()
    return len(pairs)


def mark_for_work(session: Session, user_id: int, problem_id: int, now: datetime | None = None) -> int:
    """A verdict of ``user_id`` on ``problem_id``: every linked line item of an assignment holding it."""
    items = list(
        session.scalars(
            select(LtiLineItem.id)
            .join(AssignmentProblem, AssignmentProblem.assignment_id == LtiLineItem.assignment_id)
            .where(AssignmentProblem.problem_id == problem_id)
        )
    )
    if not items:
        return 0
    return _mark(session, _linked_pairs(session, items, [user_id]), now or utcnow())


def mark_assignment(session: Session, assignment_id: int, now: datetime | None = None) -> int:
    """Every linked student of the assignment (after a regrade is applied, or "resend all")."""
    items = list(session.scalars(select(LtiLineItem.id).where(LtiLineItem.assignment_id == assignment_id)))
    if not items:
        return 0
    return _mark(session, _linked_pairs(session, items, None), now or utcnow())


def resend(session: Session, sync_id: int, course_id: int, now: datetime | None = None) -> bool:
    """Put one row of the course back in the queue, due now."""
    row = session.get(LtiGradeSync, sync_id)
    if row is None:
        return False
    item = session.get(LtiLineItem, row.line_item_id)
    context = session.get(LtiContext, item.context_link_id) if item else None
    if context is None or context.course_id != course_id:
        return False
    now = now or utcnow()
    row.status, row.attempts, row.next_attempt_at, row.marked_at = PENDING, 0, now, now
    session.flush()
    return True


@dataclass(frozen=True)
class Due:
    sync_id: int
    marked_at: datetime
    attempts: int
    line_item_url: str
    sub: str
    percent: float
    caller: Caller


def _claim(session: Session, now: datetime) -> LtiGradeSync | None:
    """The next due row, claimed for this sender: its ``next_attempt_at`` moves a lease ahead, so
    no other process sees it due while its score is in flight (and a sender that dies leaves it
    due again when the lease ends). PostgreSQL skips rows another sender holds locked
    (``FOR UPDATE SKIP LOCKED``); on SQLite, where that clause does not exist, the conditional
    ``UPDATE`` is the claim: of two senders that read the same row, only one changes it."""
    for _ in range(CLAIM_TRIES):
        row = session.execute(
            select(LtiGradeSync.id, LtiGradeSync.next_attempt_at)
            .join(LtiLineItem, LtiLineItem.id == LtiGradeSync.line_item_id)
            .where(
                LtiGradeSync.status == PENDING,
                LtiGradeSync.next_attempt_at <= now,
                LtiLineItem.url != "",  # the column is not made yet: line_items.create_due first
            )
            .order_by(LtiGradeSync.next_attempt_at, LtiGradeSync.id)
            .limit(1)
            .with_for_update(skip_locked=True, of=LtiGradeSync)
        ).first()
        if row is None:
            return None
        claimed = session.execute(
            update(LtiGradeSync)
            .where(
                LtiGradeSync.id == row.id,
                LtiGradeSync.status == PENDING,
                LtiGradeSync.next_attempt_at == row.next_attempt_at,
            )
            .values(next_attempt_at=now + CLAIM_LEASE)
            .execution_options(synchronize_session=False)
        )
        if getattr(claimed, "rowcount", 0) == 1:
            return session.get(LtiGradeSync, row.id)
    return None


def _due(session: Session, secret_key: str, row: LtiGradeSync) -> Due | None:
    item = session.get(LtiLineItem, row.line_item_id)
    assert item is not None
    context = session.get(LtiContext, item.context_link_id)
    assert context is not None
    deployment = session.get(LtiDeployment, context.deployment_id)
    assert deployment is not None
    platform = session.get(LtiPlatform, deployment.platform_id)
    assert platform is not None
    link = session.scalars(
        select(LtiUserLink).where(LtiUserLink.issuer == platform.issuer, LtiUserLink.user_id == row.user_id)
    ).first()
    assignment = session.get(Assignment, item.assignment_id)
    if link is None or assignment is None:
        row.status, row.last_error = FAILED, "the student or the assignment is gone"
        return None
    score = scoring.compute(session, [assignment], [row.user_id])[(row.user_id, assignment.id)]
    caller = Caller(
        platform.id, platform.client_id, platform.token_url, keys.signing_key(session, secret_key)
    )
    return Due(row.id, row.marked_at, row.attempts, item.url, link.sub, score.percent, caller)


def _next_due(db: Database, secret_key: str, now: datetime) -> tuple[bool, Due | None]:
    """Claim one row and read what to send: (whether a row was claimed, what to send for it)."""
    with db.transaction() as session:
        row = _claim(session, now)
        if row is None:
            return False, None
        return True, _due(session, secret_key, row)


def send_due(db: Database, secret_key: str, now: datetime | None = None, limit: int = 100) -> tuple[int, int]:
    """Send up to ``limit`` due scores; returns (sent, failed now). Safe to run from several
    processes at once: each row is claimed by one sender (:func:`_claim`) before its score goes."""
    now = now or utcnow()
    sent = failed = 0
    for _ in range(limit):
        claimed, item = _next_due(db, secret_key, now)
        if not claimed:
            break
        if item is None:
            continue
        if _send(db, item, now):
            sent += 1
        elif item.attempts + 1 >= MAX_ATTEMPTS:
            failed += 1
    return sent, failed


def _send(db: Database, item: Due, now: datetime) -> bool:
    error = ""
    try:
        post_score(item.caller, item.line_item_url, item.sub, item.percent, utcnow().isoformat())
    except ServiceError as exc:
        error = str(exc)[:1000]
    attempts = item.attempts + 1
    with db.transaction() as session:
        # A row marked again while its score was in flight (a newer verdict, a regrade) keeps its
        # new marked_at and stays due: the newer score goes next.
        still = (LtiGradeSync.id == item.sync_id) & (LtiGradeSync.marked_at == item.marked_at)
        if not error:
            session.execute(
                update(LtiGradeSync)
                .where(still)
                .values(
                    status=SENT, sent_score=item.percent, sent_at=utcnow(), last_error="", attempts=attempts
                )
            )
            return True
        values: dict[str, object] = {"attempts": attempts, "last_error": error}
        if attempts >= MAX_ATTEMPTS:
            values["status"] = FAILED
        else:
            values["next_attempt_at"] = max(now, utcnow()) + backoff(attempts)
        session.execute(update(LtiGradeSync).where(still).values(**values))
    log.warning("LTI grade passback %s failed (attempt %d): %s", item.sync_id, attempts, error)
    return False


@dataclass(frozen=True)
class SyncRow:
    id: int
    email: str
    assignment: str
    status: str
    attempts: int
    sent_score: float | None
    last_error: str
    next_attempt_at: datetime


def waiting(session: Session, course_id: int) -> list[SyncRow]:
    """The course's rows not yet sent (pending or failed), for the instructor's page."""
    from app.accounts.models import User

    query = (
        select(LtiGradeSync, User.email, Assignment.title)
        .join(LtiLineItem, LtiLineItem.id == LtiGradeSync.line_item_id)
        .join(LtiContext, LtiContext.id == LtiLineItem.context_link_id)
        .join(Assignment, Assignment.id == LtiLineItem.assignment_id)
        .join(User, User.id == LtiGradeSync.user_id)
        .where(LtiContext.course_id == course_id, LtiGradeSync.status != SENT)
        .order_by(LtiGradeSync.status, LtiGradeSync.id)
    )
    return [
        SyncRow(
            row.id,
            email,
            title,
            row.status,
            row.attempts,
            row.sent_score,
            row.last_error,
            row.next_attempt_at,
        )
        for row, email, title in session.execute(query)
    ]
