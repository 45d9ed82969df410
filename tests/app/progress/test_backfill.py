"""Migration 0011 fills the progress state from the submissions already stored (a database with history)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from alembic import command
from alembic.config import Config

from app.accounts.service import sign_up
from app.kit.db import Database, upgrade_database
from app.problems.models import Problem, ProblemVersion
from app.progress import repository as progress
from app.submissions import progress_rebuild
from app.submissions.models import Submission

ROOT = Path(__file__).resolve().parents[3]


def _alembic(url: str) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def test_upgrade_fills_the_state_from_existing_submissions(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    upgrade_database(url)
    db = Database(url)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    with db.transaction() as session:
        user = sign_up(session, "history@example.com", "a long enough password 1")
        problem = Problem(slug="p-one", title="P", difficulty="easy", category="C")
        session.add(problem)
        session.flush()
        version = ProblemVersion(problem_id=problem.id, number=1, content_hash="x", files={}, expectations={})
        session.add(version)
        session.flush()
        rows = [  # (mode, verdict, idempotency key): written straight to the table, as old data was
            ("run", "accepted", None),
            ("submit", "wrong_answer", None),
            ("submit", "accepted", None),
            ("submit", "accepted", None),
            ("submit", "accepted", "regrade-1-2"),  # a course regrade's copy is not practice
            ("submit", None, None),  # still queued: attempted, not judged
        ]
        for i, (mode, verdict, key) in enumerate(rows):
            session.add(
                Submission(
                    user_id=user.id,
                    problem_id=problem.id,
                    problem_version_id=version.id,
                    mode=mode,
                    code="x",
                    status="finished" if verdict else "queued",
                    verdict=verdict,
                    created_at=t0 + timedelta(minutes=i),
                    idempotency_key=key,
                )
            )
        user_id, problem_id = user.id, problem.id
    command.downgrade(_alembic(url), "0011-1")  # to just before the progress tables
    db.dispose()
    upgrade_database(url)
    db = Database(url)
    with db.transaction() as session:
        assert progress.learner_rows(session) == [
            (user_id, problem_id, 5, t0 + timedelta(minutes=2), t0 + timedelta(minutes=5))
        ]
        assert progress.acceptance_counts(session, [problem_id]) == {problem_id: (2, 3)}
        assert progress_rebuild.compare(session).in_step
    db.dispose()
