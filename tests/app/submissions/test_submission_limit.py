"""The per-user submission limit, attacked through real HTTP: bursts on every route and mode.

A real uvicorn server on 127.0.0.1 serves an app whose limit is ``LIMIT`` submissions a minute.
Each attack fires its requests from threads released together by a barrier, so the requests are
in flight at once (the count-then-insert race the limit used to lose), and then checks that
exactly ``LIMIT`` were accepted — in the answers and in the database — whatever the mix of
routes (the problem page's JSON endpoint and ``POST /api/v1/submissions``) and modes (run,
submit, custom input). SQLite and PostgreSQL, like every app test.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.accounts.models import User
from app.kit.db import Database
from app.main import create_app
from app.submissions.models import Submission
from tests.app.api_v1.conftest import create_account
from tests.app.cli.conftest import serve_in_thread
from tests.app.conftest import settings_for, wait_idle
from tests.app.http_clients import api_client, page_client

LIMIT = 4
BURST = 16
CUSTOM_INPUT = '{"a": 1.0, "b": 2.0}'


@dataclass
class Server:
    url: str
    app: FastAPI
    db: Database


@pytest.fixture
def server(db: Database, runner: Any) -> Iterator[Server]:
    settings = settings_for(db.url).model_copy(update={"api_submissions_per_minute": LIMIT})
    application = create_app(settings, database=db, runner=runner)
    with TestClient(application):  # the lifespan: this app's own dispatcher
        url, uvicorn_server, thread = serve_in_thread(application)
        yield Server(url, application, db)
        uvicorn_server.should_exit = True
        thread.join(timeout=10)
        wait_idle(application, timeout=120)


@dataclass
class Learner:
    """One account, reachable both ways: a logged-in browser session and an API token."""

    email: str
    token: str
    url: str

    def page_client(self) -> httpx.Client:
        return page_client(self.url, self.email)

    def api_client(self) -> httpx.Client:
        return api_client(self.url, self.token)


def _page_body(code: str, mode: str) -> dict[str, Any]:
    return {"code": code, "mode": mode} | ({"input_text": CUSTOM_INPUT} if mode == "custom" else {})


def _api_body(code: str, mode: str) -> dict[str, Any]:
    extra = {"input": {"a": 1.0, "b": 2.0}} if mode == "custom" else {}
    return {"problem": "add-tensors", "code": code, "mode": mode} | extra


Attempt = Callable[[], httpx.Response]


def page_attempt(client: httpx.Client, code: str, mode: str) -> Attempt:
    return lambda: client.post("/api/problems/add-tensors/submissions", json=_page_body(code, mode))


def api_attempt(client: httpx.Client, code: str, mode: str) -> Attempt:
    return lambda: client.post("/api/v1/submissions", json=_api_body(code, mode))


def burst(attempts: list[Attempt]) -> list[httpx.Response]:
    """Run every attempt on its own thread, all released at once; their answers in order."""
    barrier = threading.Barrier(len(attempts))
    answers: list[httpx.Response | BaseException | None] = [None] * len(attempts)

    def fire(i: int) -> None:
        barrier.wait(timeout=30)
        try:
            answers[i] = attempts[i]()
        except BaseException as exc:  # reported below, with the others' answers
            answers[i] = exc

    threads = [threading.Thread(target=fire, args=(i,)) for i in range(len(attempts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    failures = [a for a in answers if not isinstance(a, httpx.Response)]
    assert not failures, failures
    return [a for a in answers if isinstance(a, httpx.Response)]


def stored(db: Database, email: str) -> int:
    with db.sessionmaker() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        return int(
            session.scalar(select(func.count(Submission.id)).where(Submission.user_id == user_id)) or 0
        )


def assert_exactly_limit(answers: list[httpx.Response], db: Database, email: str) -> None:
    codes = [a.status_code for a in answers]
    assert codes.count(202) == LIMIT, codes
    assert codes.count(429) == len(answers) - LIMIT, codes
    for refused in (a for a in answers if a.status_code == 429):
        assert refused.json()["error"] == "rate_limited"
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert f"At most {LIMIT} submissions a minute" in refused.json()["detail"]
    assert stored(db, email) == LIMIT


@pytest.fixture
def account(server: Server) -> Learner:
    email, token = create_account(server.db)
    return Learner(email, token, server.url)


MODES = ("run", "submit", "custom")


@pytest.mark.parametrize("mode", MODES)
def test_a_burst_on_the_page_passes_exactly_the_limit(
    server: Server, account: Learner, code_of: Callable[..., str], mode: str
) -> None:
    client = account.page_client()
    answers = burst([page_attempt(client, code_of("add-tensors"), mode)] * BURST)
    assert_exactly_limit(answers, server.db, account.email)


@pytest.mark.parametrize("mode", MODES)
def test_a_burst_on_the_api_passes_exactly_the_limit(
    server: Server, account: Learner, code_of: Callable[..., str], mode: str
) -> None:
    client = account.api_client()
    answers = burst([api_attempt(client, code_of("add-tensors"), mode)] * BURST)
    assert_exactly_limit(answers, server.db, account.email)


def test_a_burst_across_routes_and_modes_shares_one_limit(
    server: Server, account: Learner, code_of: Callable[..., str]
) -> None:
    """Page and API, run, submit and custom, each on several connections, all at once."""
    code = code_of("add-tensors")
    attempts: list[Attempt] = []
    for _ in range(2):
        page, api = account.page_client(), account.api_client()
        for mode in MODES:
            attempts += [page_attempt(page, code, mode), api_attempt(api, code, mode)]
    answers = burst(attempts * 2)
    assert_exactly_limit(answers, server.db, account.email)


def test_the_page_cannot_go_past_a_limit_the_api_used_up(
    server: Server, account: Learner, code_of: Callable[..., str]
) -> None:
    code = code_of("add-tensors")
    api, page = account.api_client(), account.page_client()
    assert [api_attempt(api, code, "run")().status_code for _ in range(LIMIT)] == [202] * LIMIT
    for mode in MODES:
        refused = page_attempt(page, code, mode)()
        assert refused.status_code == 429, (mode, refused.text)
    assert api_attempt(api, code, "submit")().status_code == 429
    assert stored(server.db, account.email) == LIMIT


def test_the_api_cannot_go_past_a_limit_the_page_used_up(
    server: Server, account: Learner, code_of: Callable[..., str]
) -> None:
    code = code_of("add-tensors")
    api, page = account.api_client(), account.page_client()
    assert [page_attempt(page, code, "submit")().status_code for _ in range(LIMIT)] == [202] * LIMIT
    for mode in MODES:
        assert api_attempt(api, code, mode)().status_code == 429, mode
    assert stored(server.db, account.email) == LIMIT


def test_refused_attempts_do_not_count_and_bad_ones_take_nothing(
    server: Server, account: Learner, code_of: Callable[..., str]
) -> None:
    """A refused request (429, or a 4xx for bad input) stores nothing and uses none of the limit."""
    code = code_of("add-tensors")
    api, page = account.api_client(), account.page_client()
    bad = [
        page.post("/api/problems/add-tensors/submissions", json={"code": "", "mode": "run"}),
        page.post("/api/problems/no-such-problem/submissions", json={"code": code, "mode": "run"}),
        api.post("/api/v1/submissions", json={"problem": "add-tensors", "code": code, "mode": "judge"}),
        page.post(
            "/api/problems/add-tensors/submissions",
            json=_page_body(code, "custom") | {"input_text": "__import__('os')"},
        ),
    ]
    assert all(400 <= b.status_code < 500 and b.status_code != 429 for b in bad), [b.text for b in bad]
    assert stored(server.db, account.email) == 0
    answers = burst([api_attempt(api, code, "run")] * (LIMIT + 3))
    assert_exactly_limit(answers, server.db, account.email)


def test_each_learner_has_a_limit_of_their_own(server: Server, code_of: Callable[..., str]) -> None:
    """Two learners bursting at once: each gets exactly the limit, neither takes the other's."""
    code = code_of("add-tensors")
    first, second = (Learner(*create_account(server.db), server.url) for _ in range(2))
    one, two = first.page_client(), second.api_client()
    attempts = [page_attempt(one, code, "run"), api_attempt(two, code, "run")] * (LIMIT + 3)
    answers = burst(attempts)
    assert_exactly_limit(answers[0::2], server.db, first.email)
    assert_exactly_limit(answers[1::2], server.db, second.email)


def test_an_idempotent_retry_is_still_answered_past_the_limit(
    server: Server, account: Learner, code_of: Callable[..., str]
) -> None:
    code = code_of("add-tensors")
    api = account.api_client()
    made = [
        api.post("/api/v1/submissions", json=_api_body(code, "run"), headers={"Idempotency-Key": f"k{n}"})
        for n in range(LIMIT)
    ]
    assert [m.status_code for m in made] == [202] * LIMIT
    retries = burst(
        [
            lambda: api.post(
                "/api/v1/submissions", json=_api_body(code, "run"), headers={"Idempotency-Key": "k0"}
            )
        ]
        * 4
    )
    assert {r.json()["id"] for r in retries} == {made[0].json()["id"]}
    assert stored(server.db, account.email) == LIMIT
