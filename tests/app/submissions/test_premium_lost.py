"""A learner who lost Premium keeps their own code, verdicts and which cases passed, but no longer
reads a Premium problem's case values, inputs or the judge's words about them — by any route that
shows a submission (attacks over real HTTP: uvicorn on 127.0.0.1).

The routes: ``/api/v1/submissions/{id}`` (plain and ``?wait=true``), the page's
``/api/submissions/{id}`` (plain and waiting), the submission page (its embedded JSON and message),
the compare page, a report on one of its cases (``/api/v1/reports/{id}``), an idempotent replay of
the submit that made it, and filing a new report. Given Premium again, everything is back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.accounts.models import PremiumGrant, User
from app.kit.db import Database, utcnow
from app.submissions.views import LOCKED_MESSAGE
from tests.app.api_v1.conftest import create_account
from tests.app.cli.conftest import live_server
from tests.app.http_clients import api_client, page_client

__all__ = ["live_server"]

SLUG = "scale-rows"  # a Premium problem of the fixture bank, with [example_input]
WRONG = "import torch\n\n\ndef scale_rows(x, s):\n    return x * s.unsqueeze(1) + 0.25\n"
FAILS = "import torch\n\n\ndef scale_rows(x, s):\n    raise ValueError(f'seen {x.tolist()}')\n"


@dataclass
class Learner:
    email: str
    api: httpx.Client
    web: httpx.Client


@pytest.fixture
def learner(live_server: str, db: Database) -> Iterator[Learner]:
    email, token = create_account(db, premium_days=30)
    api, web = api_client(live_server, token), page_client(live_server, email)
    try:
        yield Learner(email, api, web)
    finally:
        api.close()
        web.close()


def set_premium(db: Database, email: str, active: bool) -> None:
    with db.transaction() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        for grant in session.scalars(select(PremiumGrant).where(PremiumGrant.user_id == user.id)):
            grant.revoked_at = None if active else utcnow()


def submit(learner: Learner, code: str, mode: str, key: str | None = None, **extra: Any) -> dict[str, Any]:
    headers = {"Idempotency-Key": key} if key else {}
    answer = learner.api.post(
        "/api/v1/submissions?wait=true&timeout=60",
        json={"problem": SLUG, "code": code, "mode": mode, **extra},
        headers=headers,
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def secrets_of(view: dict[str, Any]) -> set[str]:
    """What the gate covers, as it was shown with Premium: values, inputs, the judge's words."""
    found: set[str] = set()
    for case in view["tests"]:
        for key in ("expected", "actual", "stdout", "try_input"):
            if isinstance(case.get(key), str) and len(case[key]) > 3:
                found.add(case[key])
        if len(case["message"]) > 30:
            found.add(case["message"])
    if len(view["message"]) > 30:
        found.add(view["message"])
    return found


def assert_gated(view: dict[str, Any], cases: str = "tests") -> None:
    assert view["locked"] is True, view
    assert view["message"] == LOCKED_MESSAGE
    assert view["verdict"] and view["passed"] is not None and view["total"]  # the verdict stays theirs
    for case in view[cases]:
        assert case.get("expected") is None and case.get("actual") is None and case.get("stdout") is None
        assert case.get("try_input") is None and case.get("traceback", "") == ""
        failure = case.get("failure") or {}
        assert set(failure) <= {"kind", "title", "rule", "sentence", "property", "rtol", "atol",
                                "max_error", "input"}  # fmt: skip
        assert not any(failure.get(k) for k in ("input", "rtol", "atol", "max_error", "sentence", "property"))
        if case["status"] != "passed":
            assert case["message"] == f"{failure['title']}."


def assert_hidden(text: str, secrets: set[str]) -> None:
    for secret in secrets:
        assert secret not in text and json.dumps(secret)[1:-1] not in text, secret


def test_premium_lost_gates_every_route_that_shows_a_submission(learner: Learner, db: Database) -> None:
    run = submit(learner, WRONG, "run")
    failed = submit(learner, WRONG, "submit", key="premium-lost-1")
    raised = submit(learner, FAILS, "submit")
    custom = submit(
        learner, WRONG, "custom", input_text='{"x": {"tensor": [[1.0, 2.0]]}, "s": {"tensor": [3.0]}}'
    )
    views = [run, failed, raised, custom]
    # With Premium: the values, the statement's example as "Try this input", the judge's words.
    example = next(c for c in run["tests"] if c["public"])
    assert example["status"] == "failed" and example["expected"] and example["actual"]
    assert example["try_input"], run
    assert '"x"' in example["try_input"] and not run["locked"]
    assert all(c["try_input"] is None for c in failed["tests"] if not c["public"])  # hidden stays hidden
    assert "seen" in raised["message"], raised
    assert any(c["traceback"] for c in raised["tests"]), raised
    assert custom["tests"][0]["expected"], json.dumps(custom)
    report = learner.api.post(f"/api/v1/submissions/{failed['id']}/reports",
                              json={"case": "three_rows", "note": "Rounding?"})  # fmt: skip
    assert report.status_code == 201, report.text
    assert report.json()["case_result"]["status"] == "failed"
    secrets = set().union(*(secrets_of(v) for v in views))
    assert secrets

    set_premium(db, learner.email, active=False)

    for view in views:
        sid = view["id"]
        # The REST API, plain and waiting (a finished submission answers at once).
        for params in ({}, {"wait": "true", "timeout": "1"}):
            answer = learner.api.get(f"/api/v1/submissions/{sid}", params=params)
            assert answer.status_code == 200, answer.text
            assert_gated(answer.json())
            assert_hidden(answer.text, secrets)
        # The page's JSON API (session cookie), plain and waiting.
        for params in ({}, {"wait": "true", "timeout": "1"}):
            answer = learner.web.get(f"/api/submissions/{sid}", params=params)
            assert answer.status_code == 200, answer.text
            assert_gated(answer.json(), "cases")
            assert_hidden(answer.text, secrets)
        # The submission page: the message and the embedded view; the code is still theirs.
        page = learner.web.get(f"/submissions/{sid}")
        assert page.status_code == 200
        assert_hidden(page.text, secrets)
        embedded = re.search(
            r'<script type="application/json" id="submission-data">(.*?)</script>', page.text, re.S
        )
        assert embedded is not None
        assert_gated(json.loads(embedded.group(1)), "cases")
        assert "scale_rows" in page.text  # the code, highlighted
        assert 'id="report-case"' not in page.text  # nothing to report while locked
        code = learner.web.get(f"/api/submissions/{sid}/code")
        assert code.status_code == 200 and "scale_rows" in code.json()["code"]
    # The compare page.
    compare = learner.web.get(f"/submissions/{run['id']}/compare/{raised['id']}")
    assert compare.status_code == 200
    assert_hidden(compare.text, secrets)
    # A report on one of its cases: no case result for the reporter while locked.
    seen = learner.api.get(f"/api/v1/reports/{report.json()['id']}")
    assert (
        seen.status_code == 200 and seen.json()["case_result"] is None and seen.json()["submission"] is None
    )
    assert_hidden(seen.text, secrets)
    listed = learner.api.get("/api/v1/reports")
    assert listed.status_code == 200 and all(r["case_result"] is None for r in listed.json()["items"])
    assert_hidden(listed.text, secrets)
    # Replaying the submit that made it (same Idempotency-Key): the gate, not the stored view.
    replay = learner.api.post(
        "/api/v1/submissions?wait=true",
        json={"problem": SLUG, "code": WRONG, "mode": "submit"},
        headers={"Idempotency-Key": "premium-lost-1"},
    )
    assert replay.status_code == 200 and replay.headers["Idempotent-Replayed"] == "true", replay.text
    assert replay.json()["id"] == failed["id"]
    assert_gated(replay.json())
    assert_hidden(replay.text, secrets)
    # Filing a report needs the problem's tests.
    again = learner.api.post(f"/api/v1/submissions/{failed['id']}/reports",
                             json={"case": "example", "note": "x"})  # fmt: skip
    assert again.status_code == 403 and again.json()["error"] == "premium_required"

    # Premium again: everything is back, as it was.
    set_premium(db, learner.email, active=True)
    back = learner.api.get(f"/api/v1/submissions/{run['id']}").json()
    assert back["locked"] is False and back["tests"] == run["tests"]
