"""Invitations to a course: rosters that invite, and what an invited person does with theirs.

An invitation is bound to its email: only the account with that email may accept it (by its code,
through :func:`app.courses.enrolment.join`) or decline it. A roster invites, it never enrols, and it
never invites staff (instructors, admins).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import repository
from app.courses.enrolment import new_code, same_email
from app.courses.models import ACTIVE, BLOCKED, INSTRUCTOR, Course, CourseInvitation
from app.kit.errors import InvalidInput, NotFound
from runner.format.fields import forbidden_character, one_line_error

MAX_ROSTER_ROWS = 5000


@dataclass(frozen=True)
class PendingInvitation:
    invitation: CourseInvitation
    course: Course


def my_invitations(session: Session, user: User) -> list[PendingInvitation]:
    """Invitations to the user's email that they have neither accepted nor declined."""
    found = repository.pending_invitations_for(session, user.email.lower())
    return [PendingInvitation(i, c) for i, c in found]


def decline(session: Session, user: User, invitation_id: int, now: datetime) -> CourseInvitation:
    """Say no to an invitation (a later roster import skips the email; the join code still works)."""
    invitation = repository.get_invitation(session, invitation_id)
    if invitation is None or not same_email(user, invitation.email) or invitation.accepted_by_id is not None:
        raise NotFound(f"You have no open invitation #{invitation_id}.")
    invitation.declined_at = now
    session.flush()
    return invitation


@dataclass
class RosterReport:
    invited: list[tuple[str, str]] = field(default_factory=list)  # (email, invitation code)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)


def _roster_rows(text: str) -> list[tuple[int, str, str]]:
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if len(rows) > MAX_ROSTER_ROWS:
        raise InvalidInput(f"A roster is limited to {MAX_ROSTER_ROWS} rows.")
    email_col, section_col, start = 0, None, 0
    if rows:
        header = [c.strip().lower() for c in rows[0]]
        if "email" in header:
            email_col = header.index("email")
            section_col = header.index("section") if "section" in header else None
            start = 1
    out = []
    for number, row in enumerate(rows[start:], start=start + 1):
        if not row or not any(c.strip() for c in row):
            continue
        email = row[email_col].strip().lower() if email_col < len(row) else ""
        section = row[section_col].strip() if section_col is not None and section_col < len(row) else ""
        out.append((number, email, section[:100]))
    return out


def _roster_skip(session: Session, course: Course, email: str) -> str | None:
    """Why this roster email gets no invitation (None: invite it)."""
    user = repository.get_user_by_email(session, email)
    if user is not None and user.is_staff:
        return f"{email} is a staff account (instructor or admin): add them as a co-instructor instead"
    member = repository.membership(session, course.id, user.id) if user is not None else None
    if member is not None and member.role == INSTRUCTOR:
        return f"{email} is an instructor of this course"
    if member is not None and member.status == BLOCKED:
        return f"{email} is blocked"
    if member is not None and member.status == ACTIVE:
        return f"{email} is already in the course"
    invitation = repository.invitation_for(session, course.id, email)
    if invitation is not None and invitation.declined_at is not None:
        return f"{email} declined the invitation (they can still join with the join code)"
    return None


def import_roster(session: Session, course: Course, text: str) -> RosterReport:
    """Invite every email of a CSV roster; nobody is enrolled until they accept their invitation.

    An invitation is bound to its email: the account with that email (now or once they sign up)
    sees it under My courses and may accept or decline it. Staff accounts are never invited as
    students; blocked students, students already in and declined invitations are skipped.
    Importing again keeps each open invitation's code.
    """
    report = RosterReport()
    for line, email, section in _roster_rows(text):
        if "@" not in email or len(email) > 254 or forbidden_character(email) is not None:
            report.skipped.append((line, f"not an email address: {email[:60]!r}"))
            continue
        if (error := one_line_error("section", section)) is not None:
            report.skipped.append((line, error))
            continue
        reason = _roster_skip(session, course, email)
        if reason is not None:
            report.skipped.append((line, reason))
            continue
        invitation = repository.invitation_for(session, course.id, email)
        if invitation is None:
            invitation = repository.add(
                session,
                CourseInvitation(course_id=course.id, email=email, section=section, code=new_code(10)),
            )
        elif invitation.accepted_by_id is not None:  # accepted once, then left or removed: ask again
            invitation.accepted_by_id, invitation.code = None, new_code(10)
        if section:
            invitation.section = section
        session.flush()
        report.invited.append((email, invitation.code))
    return report
