"""Scaled out, several processes sweep one passback queue: each score goes to the LMS once, and a
gradebook column the platform failed to make during a launch is made by the sweep (once)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from app.accounts.models import User as Account
from app.kit.db import Database, utcnow
from app.lti import line_items, passback
from app.lti.models import LtiGradeSync, LtiLineItem, LtiUserLink
from tests.app.conftest import Browser
from tests.app.courses.helpers import stored_submit
from tests.app.lti.conftest import launch
from tests.app.lti.platform import LEARNER, Platform, User
from tests.app.lti.test_done_path import _course_with_assignment

LATER = timedelta(hours=7)  # past any back-off


def _until(what: Callable[[], Any], message: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := what()):
        assert time.monotonic() < deadline, message
        time.sleep(0.02)
    return value


@pytest.fixture
def second_db(db: Database) -> Iterator[Database]:
    """Another process's connection pool on the same database."""
    other = Database(db.url)
    yield other
    other.dispose()


def _students(
    platform: Platform, new_browser: Callable[[], Browser], assignment_id: int, n: int
) -> list[User]:
    people = [User(f"s-{i}", f"Student {i}", f"s{i}@uni.example", LEARNER) for i in range(n)]
    for person in people:
        landed = launch(new_browser(), platform, person, custom={"assignment": str(assignment_id)})
        assert landed.status_code == 303, landed.text
    return people


def _solve(db: Database, people: list[User]) -> None:
    """Each student's accepted submission, recorded without telling the web process's worker."""
    with db.transaction() as session:
        for person in people:
            link = session.scalars(select(LtiUserLink).where(LtiUserLink.sub == person.sub)).one()
            account = session.get(Account, link.user_id)
            assert account is not None
            submission = stored_submit(session, account, "add-tensors", utcnow())
            passback.mark_for_work(session, account.id, submission.problem_id)


def _statuses(db: Database) -> list[str]:
    with db.transaction() as session:
        return sorted(session.scalars(select(LtiGradeSync.status)))


def test_two_senders_on_one_database_send_each_score_once(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database, second_db: Database
) -> None:
    _course_id, assignment_id = _course_with_assignment(new_browser(), platform, "add-tensors")
    people = _students(platform, new_browser, assignment_id, 3)
    _solve(db, people)
    secret = app.state.settings.secret_key
    platform.score_gate = threading.Event()  # every score post waits until both senders have one out
    results: list[tuple[int, int]] = []
    senders = [
        threading.Thread(target=lambda d=d: results.append(passback.send_due(d, secret)))
        for d in (db, second_db)
    ]
    for sender in senders:
        sender.start()
    try:
        _until(lambda: len(platform.in_flight) >= 2, "the two senders did not both post")
        # Two posts in flight at once, from two senders: never the same student's score.
        assert len(set(platform.in_flight)) == len(platform.in_flight)
    finally:
        platform.score_gate.set()
        for sender in senders:
            sender.join(timeout=60)
    # (the web process's own sweep may be a third sender: wait for its post too)
    _until(lambda: len(platform.scores) >= len(people), "not every score reached the LMS")
    _until(lambda: _statuses(db) == ["sent"] * len(people), "not every row was recorded as sent")
    assert sorted(s["userId"] for s in platform.scores) == sorted(p.sub for p in people)
    assert sorted(platform.in_flight) == sorted(p.sub for p in people)  # nothing posted twice
    assert sum(sent for sent, _ in results) <= len(people)
    assert _statuses(db) == ["sent"] * len(people)
    assert passback.send_due(db, secret) == (0, 0)  # nothing left to claim


def test_a_claimed_score_is_not_sent_by_another_until_its_lease_ends(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database, second_db: Database
) -> None:
    _course_id, assignment_id = _course_with_assignment(new_browser(), platform, "add-tensors")
    (person,) = _students(platform, new_browser, assignment_id, 1)
    _solve(db, [person])
    secret = app.state.settings.secret_key
    platform.score_gate = threading.Event()  # the first sender hangs mid-post (as if it died)
    results: list[tuple[int, int]] = []
    stuck = threading.Thread(target=lambda: results.append(passback.send_due(db, secret)))
    stuck.start()
    later = utcnow() + passback.CLAIM_LEASE + timedelta(seconds=1)
    retry = threading.Thread(target=lambda: results.append(passback.send_due(second_db, secret, now=later)))
    try:
        _until(lambda: platform.in_flight, "the first sender did not post")
        assert passback.send_due(second_db, secret) == (0, 0)  # claimed: not due for anyone else
        retry.start()  # the lease has ended: another sender takes the row over
        _until(lambda: len(platform.in_flight) == 2, "the row was not taken over after its lease")
    finally:
        platform.score_gate.set()
        stuck.join(timeout=60)
        if retry.is_alive() or retry.ident is not None:
            retry.join(timeout=60)
    assert platform.in_flight == [person.sub, person.sub]
    assert _statuses(db) == ["sent"]


def test_the_sweep_makes_the_column_a_launch_could_not_once(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database, second_db: Database
) -> None:
    secret = app.state.settings.secret_key
    _course_id, assignment_id = _course_with_assignment(new_browser(), platform, "add-tensors")
    platform.fail_line_items = True
    (person,) = _students(platform, new_browser, assignment_id, 1)  # the launch still lands
    assert platform.line_items == {}
    with db.transaction() as session:
        (item,) = session.scalars(select(LtiLineItem))
        assert item.url == "" and "503" in item.last_error and item.retry_at is not None
    _solve(db, [person])
    assert passback.send_due(db, secret, now=utcnow() + LATER) == (0, 0)  # the score waits for the column
    assert _statuses(db) == ["pending"]

    # still failing: backed off, and the score keeps waiting
    assert line_items.create_due(db, secret, now=utcnow() + LATER) == 0
    # the platform makes the column but the reply is lost: the next try finds it, never a second
    platform.fail_line_items = False
    platform.lose_line_items = 1
    assert line_items.create_due(db, secret, now=utcnow() + 2 * LATER) == 0
    assert len(platform.line_items) == 1
    made: list[int] = []
    sweeps = [
        threading.Thread(
            target=lambda d=d: made.append(line_items.create_due(d, secret, now=utcnow() + 3 * LATER))
        )
        for d in (db, second_db)
    ]
    for sweep in sweeps:
        sweep.start()
    for sweep in sweeps:
        sweep.join(timeout=60)
    assert sorted(made) == [0, 1]  # one sweep made it; the other found nothing to claim
    (column,) = platform.line_items
    with db.transaction() as session:
        (item,) = session.scalars(select(LtiLineItem))
        assert item.url == column and item.retry_at is None
    assert line_items.create_due(db, secret, now=utcnow() + 4 * LATER) == 0

    assert passback.send_due(db, secret) == (1, 0)
    assert [(s["userId"], s["_line_item"], s["scoreGiven"]) for s in platform.scores] == [
        (person.sub, column, 100)
    ]


def test_the_web_process_sweep_makes_the_column_when_the_platform_recovers(
    app: Any, platform: Platform, new_browser: Callable[[], Browser], db: Database
) -> None:
    """No hand-driven sweep: the worker woken by the launch and by the verdict does it all."""
    from app.lti.worker import PassbackWorker

    _course_id, assignment_id = _course_with_assignment(new_browser(), platform, "add-tensors")
    platform.fail_line_items = True
    (person,) = _students(platform, new_browser, assignment_id, 1)
    platform.fail_line_items = False
    with db.transaction() as session:  # the back-off has passed
        for item in session.scalars(select(LtiLineItem)):
            item.retry_at = utcnow() - timedelta(seconds=1)
    worker = PassbackWorker(db, app.state.settings.secret_key)  # another process's worker
    _solve(db, [person])
    worker.run_once()
    _until(lambda: platform.scores, "no score reached the LMS")
    assert len(platform.line_items) == 1 and platform.scores[-1]["userId"] == person.sub
