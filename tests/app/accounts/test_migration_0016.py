"""Migration 0016 keeps existing tokens working as they did (scopes by role, no expiry), keeps
every user and what references them, and goes back down cleanly."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from app.accounts import tokens
from app.accounts.service import sign_up
from app.kit.db import Database, upgrade_database, utcnow
from tests.app.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[3]


def _alembic(url: str) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def test_old_tokens_keep_their_powers_and_users_survive_the_round_trip(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(_alembic(url), "0015")
    engine = sa.create_engine(url)
    with engine.begin() as conn:  # rows as the previous release wrote them
        for i, role in enumerate(("student", "instructor", "admin"), 1):
            user = sa.text("INSERT INTO users (id, email, password_hash, role, created_at, session_epoch) "
                           "VALUES (:i, :e, 'x', :r, CURRENT_TIMESTAMP, 3)")  # fmt: skip
            conn.execute(user, {"i": i, "e": f"{role}@example.com", "r": role})
            conn.execute(sa.text("INSERT INTO api_tokens (user_id, name, token_hash, prefix, created_at) "
                                 "VALUES (:i, 'old', :h, 'td_old', CURRENT_TIMESTAMP)"),
                         {"i": i, "h": f"{i:064d}"})  # fmt: skip
    engine.dispose()
    upgrade_database(url)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        rows = conn.execute(
            sa.text("SELECT user_id, scopes, expires_at FROM api_tokens ORDER BY user_id")
        ).all()
        assert [tuple(r) for r in rows] == [(1, "read submit", None), (2, "read submit teach", None),
                                            (3, "read submit teach", None)]  # fmt: skip
        assert conn.execute(sa.text("SELECT count(*) FROM users")).scalar() == 3
    engine.dispose()
    db = Database(url)
    with db.transaction() as session:  # the new schema works for new rows too
        user = sign_up(session, "new@example.com", PASSWORD)
        tokens.create_token(session, user, "new", utcnow(), scopes=["read"])
    db.dispose()
    command.downgrade(_alembic(url), "0015")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM users")).scalar() == 4
        assert conn.execute(sa.text("SELECT count(*) FROM api_tokens")).scalar() == 4
        assert "user_sessions" not in sa.inspect(conn).get_table_names()
    engine.dispose()
