"""Launches from a real LTI 1.3 platform on 127.0.0.1: signed in, linked by (issuer, sub), roles mapped."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from app.courses.models import Course, CourseMember
from app.kit.db import Database
from app.lti.models import LtiContext, LtiUserLink
from tests.app.conftest import Browser
from tests.app.lti.conftest import launch
from tests.app.lti.platform import INSTRUCTOR, LEARNER, Platform, User


def _count(db: Database, model: Any) -> int:
    with db.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_instructor_then_student_launch(platform: Platform, new_browser: Any, db: Database) -> None:
    teacher, student = new_browser(), new_browser()
    done = launch(teacher, platform, User("t-1", "Ada Teacher", "ada@uni.example", INSTRUCTOR))
    assert done.status_code == 303, done.text
    assert done.headers["location"].startswith("/courses/")
    course_id = int(done.headers["location"].split("/")[2])
    assert teacher.get(f"/courses/{course_id}/lti").status_code == 200  # signed in, the course's instructor
    assert f'href="/courses/{course_id}/lti"' in teacher.get(f"/courses/{course_id}").text

    landed = launch(student, platform, User("s-1", "Sam Student", "sam@uni.example", LEARNER))
    assert landed.status_code == 303 and landed.headers["location"] == f"/courses/{course_id}"
    assert student.get(f"/courses/{course_id}").status_code == 200  # signed in and enrolled
    assert student.get(f"/courses/{course_id}/lti").status_code == 404  # not an instructor page for them
    with db.transaction() as session:
        roles = dict(
            session.execute(
                select(CourseMember.user_id, CourseMember.role).where(CourseMember.course_id == course_id)
            ).all()
        )
        assert sorted(roles.values()) == ["instructor", "student"]
        course = session.get(Course, course_id)
        assert course is not None and course.lti_context_id == "course-101"

    # again: the same accounts, no second link or course
    users, links, contexts = _count(db, LtiUserLink), _count(db, LtiContext), _count(db, Course)
    assert (
        launch(new_browser(), platform, User("s-1", "Sam S.", "sam@uni.example", LEARNER)).status_code == 303
    )
    assert (_count(db, LtiUserLink), _count(db, LtiContext), _count(db, Course)) == (users, links, contexts)


def test_account_never_linked_by_email(
    platform: Platform, learner: Browser, new_browser: Any, db: Database
) -> None:
    """Someone in the LMS with the e-mail of an existing account gets a new account, not theirs."""
    assert learner.email is not None
    launch(new_browser(), platform, User("t-9", "T", "t9@uni.example", INSTRUCTOR))
    stranger = new_browser()
    assert launch(stranger, platform, User("s-evil", "Eve", learner.email, LEARNER)).status_code == 303
    with db.transaction() as session:
        link = session.scalars(select(LtiUserLink).where(LtiUserLink.sub == "s-evil")).one()
        from app.accounts.models import User as Account

        account = session.get(Account, link.user_id)
        assert account is not None and account.email != learner.email
    mine = learner.get("/account")
    assert mine.status_code == 200
    assert stranger.get("/account").text.count(learner.email) == 0


def test_learner_of_an_unlinked_context_is_refused(
    platform: Platform, new_browser: Any, db: Database
) -> None:
    before = (_count(db, Course), _count(db, LtiUserLink), _count(db, LtiContext))
    refused = launch(new_browser(), platform, User("s-2", "S", "s2@uni.example", LEARNER))
    assert refused.status_code == 400
    assert "not linked to a Torchdrill course yet" in refused.text
    assert (_count(db, Course), _count(db, LtiUserLink), _count(db, LtiContext)) == before


def test_jwks_publishes_rotated_keys_for_a_grace_period(app: Any, db: Database, new_browser: Any) -> None:
    from datetime import timedelta

    from app.kit.db import utcnow
    from app.lti import keys

    secret = app.state.settings.secret_key
    client = new_browser()
    first = client.get("/lti/jwks").json()["keys"]
    assert first and all("d" not in k and k["kty"] == "RSA" for k in first)  # never a private part
    with db.transaction() as session:
        old = keys.current(session, secret).kid
        new = keys.rotate(session, secret, timedelta(days=7)).kid
    published = {k["kid"] for k in client.get("/lti/jwks").json()["keys"]}
    assert {old, new} <= published  # launches signed a moment ago still verify
    with db.transaction() as session:
        later = keys.published(session, secret, utcnow() + timedelta(days=8))
    assert old not in {k["kid"] for k in later["keys"]} and new in {k["kid"] for k in later["keys"]}
