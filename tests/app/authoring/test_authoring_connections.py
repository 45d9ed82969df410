"""Validation runs the sandbox for seconds: the request holds no pooled connection meanwhile.

Before, the request's transaction (opened by its first read) kept its connection checked out
while the reference and every mutant ran; on PostgreSQL it sat idle in a transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from app.accounts.service import sign_up
from app.kit.db import Database
from app.kit.runner import JudgeRunner
from runner.format.problem import ProblemFiles
from runner.jobs import Expectations
from tests.app.authoring.helpers import PASSWORD, WALKTHROUGH, call
from tests.app.conftest import Browser


class WatchingRunner:
    """The real runner; notes how many of the pool's connections are checked out each time the
    sandbox is asked for a problem's expected values (validation's first step)."""

    def __init__(self, runner: JudgeRunner, database: Database) -> None:
        self._runner = runner
        self._database = database
        self.checked_out: list[int] = []

    def compute_expectations(self, problem: ProblemFiles) -> Expectations:
        self.checked_out.append(self._database.engine.pool.checkedout())  # type: ignore[attr-defined]
        return self._runner.compute_expectations(problem)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)


def an_instructor(app: Any, db: Database) -> Browser:
    email = f"author-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="admin")
    browser = Browser(app)
    assert browser.login(email, PASSWORD).status_code == 303
    return browser


def test_no_connection_is_held_while_the_sandbox_validates(
    make_app: Callable[..., Any], runner: JudgeRunner, db: Database, walkthrough_files: dict[str, str]
) -> None:
    watching = WatchingRunner(runner, db)
    author = an_instructor(make_app(runner=watching), db)
    assert db.engine.pool.checkedout() == 0  # type: ignore[attr-defined]

    # unsaved files
    report = call(
        author,
        "POST",
        f"/api/v1/authoring/problems/{WALKTHROUGH}/validate",
        json={"files": walkthrough_files},
    )
    assert report.status_code == 200 and report.json()["ok"], report.text
    body = {"slug": WALKTHROUGH, "files": walkthrough_files}
    created = call(author, "POST", "/api/v1/authoring/problems", json=body)
    assert created.status_code == 201, created.text
    # the working copy (read from the database, then validated), and a publish
    assert call(author, "POST", f"/api/v1/authoring/problems/{WALKTHROUGH}/validate").json()["ok"]
    published = call(author, "POST", f"/api/v1/authoring/problems/{WALKTHROUGH}/publish")
    assert published.status_code == 200, published.text
    # a saved draft of a published problem, validated as it is published
    edited = dict(walkthrough_files, **{"statement.md": walkthrough_files["statement.md"] + "\nEdited.\n"})
    saved = call(author, "PUT", f"/api/v1/authoring/problems/{WALKTHROUGH}", json={"files": edited})
    assert saved.status_code == 200 and saved.json()["live_version"] == 1, saved.text
    again = call(author, "POST", f"/api/v1/authoring/problems/{WALKTHROUGH}/publish")
    assert again.status_code == 200 and again.json()["live_version"] == 2, again.text

    assert len(watching.checked_out) >= 4
    assert watching.checked_out == [0] * len(watching.checked_out)
