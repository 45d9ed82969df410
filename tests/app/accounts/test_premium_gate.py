"""Premium problems: statement for everyone, the rest only for premium viewers (staff and members)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from app.accounts.models import PremiumGrant, User
from app.accounts.premium import is_premium
from app.kit.db import utcnow
from tests.app.statements import sent_statements


def test_is_premium_for_staff_and_active_grants_only() -> None:
    now = datetime.now(UTC)
    assert not is_premium(None, now)
    assert not is_premium(User(email="s@example.com", password_hash="x", role="student"), now)
    assert is_premium(User(email="i@example.com", password_hash="x", role="instructor"), now)
    assert is_premium(User(email="a@example.com", password_hash="x", role="admin"), now)
    member = User(email="m@example.com", password_hash="x", role="student")
    member.premium_grants = [
        PremiumGrant(starts_at=now - timedelta(days=1), expires_at=now + timedelta(hours=1))
    ]
    assert is_premium(member, now)
    assert not is_premium(member, now + timedelta(hours=1))  # the expiry is exclusive
    assert not is_premium(member, now - timedelta(days=2))  # not before it starts
    member.premium_grants[0].revoked_at = now
    assert not is_premium(member, now)


def test_locked_page_sends_statement_and_preview_only(learner, browser) -> None:
    for viewer in (learner, browser):
        html = viewer.get("/problems/scale-rows").text
        assert "multiplies row" in html  # statement in full
        assert "Give <code>s</code> a trailing dimension" in html  # first learn section
        assert "PREMIUM-ONLY-SECRET" not in html and "The full trick" not in html
        assert "The rest of this lesson is part of Premium" in html
        assert 'id="editor-locked"' in html and 'id="code"' not in html
        assert "raise NotImplementedError" not in html  # no starter code
        assert "/static/vendor/editor." not in html


def test_locked_problem_refuses_run_and_submit(learner, code_of) -> None:
    for mode in ("run", "submit"):
        response = learner.submit("scale-rows", code_of("scale-rows"), mode)
        assert response.status_code == 403
        assert response.json()["error"] == "premium_required"
    assert learner.get("/api/problems/scale-rows/submissions").json()["submissions"] == []


def test_premium_viewer_gets_everything(admin, code_of) -> None:
    html = admin.get("/problems/scale-rows").text
    assert "PREMIUM-ONLY-SECRET" in html and 'id="editor-locked"' not in html
    assert "raise NotImplementedError" in html
    result = admin.verdict(admin.submit("scale-rows", code_of("scale-rows")).json()["id"])
    assert result["verdict"] == "accepted"


def test_a_page_viewer_comes_with_every_grant_in_one_query(learner, db, code_of) -> None:
    """The viewer's grants come with the viewer (one query, a row per grant), all of them: an
    expired grant sorted first must not hide the live one."""
    now = utcnow()
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == learner.email)).one()
        for days in (-30, 30):  # the expired grant sorts first (by expiry)
            session.add(PremiumGrant(user_id=user.id, starts_at=now - timedelta(days=60),
                                     expires_at=now + timedelta(days=days), source="admin"))  # fmt: skip
    with sent_statements(db.engine) as sent:
        html = learner.get("/problems/scale-rows").text
    assert "PREMIUM-ONLY-SECRET" in html and 'id="editor-locked"' not in html
    # The viewer comes with their session row (app/accounts/sessions.py): one query for both.
    assert [s for s in sent if "FROM user_sessions JOIN users" in s and "premium_grants" in s], sent
    assert not [s for s in sent if s.startswith("SELECT premium_grants")], sent
