"""The whole scaled-out stack as separate processes: web (uvicorn), recorder, two runner workers.

Learners are HTTP clients (session cookie + CSRF, like the page's JavaScript).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from app.kit.db import Database
from app.submissions import progress_rebuild
from tests.scale.stack import (
    Stack,
    WebClient,
    code_of,
    insert_submission,
    json_lines,
    make_user,
    rows,
    wait_finished,
    wait_for,
)

pytestmark = [pytest.mark.celery, pytest.mark.postgres, pytest.mark.slow]

GOOD = code_of("add-tensors")
BAD = code_of("add-tensors", "mutants/subtracts.py")


def test_web_restarted_with_submissions_in_flight_loses_none(stack: Stack) -> None:
    stack.start_recorder()
    runner = stack.start_runner("runner-a", wait=False)
    web, base = stack.start_web()
    port = base.rsplit(":", 1)[1]
    accepted: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()

    def learner() -> None:
        client = WebClient(base)
        client.signup()
        while not stop.is_set():
            try:
                submission_id = client.submit("add-tensors", GOOD)
            except (httpx.HTTPError, AssertionError):
                return  # the web process is gone
            with lock:
                accepted.append(submission_id)

    threads = [threading.Thread(target=learner) for _ in range(4)]
    for t in threads:
        t.start()
    wait_for(lambda: len(accepted) >= 20, 30, "submissions to flow")
    web.kill(signal.SIGKILL)  # in the middle of requests
    stop.set()
    for t in threads:
        t.join(timeout=30)
    # A crash between a commit and its publish: rows that exist but were never sent to the broker.
    user = make_user(stack.db_url)
    unpublished = [insert_submission(stack.db_url, user, "add-tensors", BAD) for _ in range(5)]

    stack.start_web(port=int(port))  # startup recovery publishes what is not in flight
    stack.wait_runner(runner)
    everything = [r.id for r in rows(stack.db_url)]
    assert set(accepted) | set(unpublished) <= set(everything)
    done = wait_finished(stack.db_url, everything, 60)
    for submission_id, row in done.items():
        assert row.verdict == ("wrong_answer" if submission_id in unpublished else "accepted"), row


def test_500_submissions_from_16_clients_two_workers(stack: Stack) -> None:
    stack.settings_env["TORCHDRILL_BROKER_VISIBILITY_TIMEOUT_S"] = "60"
    stack.start_recorder()
    runners = [stack.start_runner(f"runner-{i}", slots=2, wait=False) for i in range(2)]
    web, base = stack.start_web()
    for runner in runners:
        stack.wait_runner(runner)
    total, clients = 500, 16
    plans = [list(range(i, total, clients)) for i in range(clients)]  # 31 or 32 submissions each

    def learner(plan: list[int]) -> list[tuple[int, str, str]]:
        client = WebClient(base)
        try:
            client.signup()
            sent = []
            for n in plan:
                code, expected = (GOOD, "accepted") if n % 3 else (BAD, "wrong_answer")
                sent.append((client.submit("add-tensors", code), expected))
            return [(sid, expected, str(client.verdict(sid, 120).get("verdict"))) for sid, expected in sent]
        finally:
            client.close()

    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = [r for batch in pool.map(learner, plans) for r in batch]

    assert len(results) == total
    assert len({sid for sid, _, _ in results}) == total  # no submission answered twice or merged
    wrong = [(sid, expected, got) for sid, expected, got in results if expected != got]
    assert not wrong, wrong[:5]
    in_db = rows(stack.db_url, "SELECT status, count(*) AS n FROM submissions GROUP BY status")
    assert [(r.status, r.n) for r in in_db] == [("finished", total)]  # none lost, none extra
    # The recorder maintained the listings' progress state exactly once per verdict, under load.
    db = Database(stack.db_url)
    try:
        with db.transaction() as session:
            comparison = progress_rebuild.compare(session)
    finally:
        db.dispose()
    assert comparison.in_step and comparison.learner_rows == clients, comparison

    # Every verdict was recorded once; a duplicate would have been counted, not stored.
    metrics = httpx.get(f"{base}/metrics", timeout=10).text
    judged = sum(
        float(v) for v in re.findall(r"^torchdrill_submissions_judged_total\{[^}]*\} (\S+)$", metrics, re.M)
    )
    assert judged == total, metrics
    assert 'torchdrill_queue_depth{queue="judge"} 0.0' in metrics
    pool = [
        line for line in metrics.splitlines() if line.startswith(("torchdrill_sandbox", "torchdrill_runner"))
    ]
    assert "torchdrill_sandbox_slots 4.0" in pool and "torchdrill_runner_workers 2.0" in pool, (
        pool,
        list(stack.redis_server.client().hgetall("torchdrill-db0:runners")),
    )
    assert re.search(r"^torchdrill_judge_latency_seconds_count (\S+)$", metrics, re.M)
    both = {e.get("logger") for r in runners for e in json_lines(r.output()) if "judged" in e["message"]}
    assert both == {"runner.worker"}
    for r in runners:  # the load was shared
        assert sum(1 for e in json_lines(r.output()) if "judged" in e["message"]) > 50, r.name

    # The web's access-log lines say which submission each request was about, the POST that
    # created it included (its id is known only once the handler has run).
    access = [e for e in json_lines(web.output()) if e["logger"] == "uvicorn.access"]
    posts = [e for e in access if "POST /api/problems/add-tensors/submissions" in e["message"]]
    waits = [e for e in access if "GET /api/submissions/" in e["message"]]
    assert len(posts) == total and {e.get("submission_id") for e in posts} == {sid for sid, _, _ in results}
    assert waits and all(f"/api/submissions/{e.get('submission_id')}?" in e["message"] for e in waits)


def test_runner_process_has_no_database_url_or_secret_and_never_imports_app(stack: Stack) -> None:
    runner = stack.start_runner("runner-a")
    with open(f"/proc/{runner.pid}/environ", "rb") as f:
        environ = f.read().decode(errors="replace").split("\0")
    names = {item.split("=", 1)[0] for item in environ if "=" in item}
    assert not names & {"TORCHDRILL_DATABASE_URL", "TORCHDRILL_SECRET_KEY", "DATABASE_URL"}
    assert stack.db_url not in "\n".join(environ)
    probe = (
        "import sys, runner.transport.celery_worker; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'app'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], env=stack.runner_env(), capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_custom_input_is_judged_by_a_runner_worker(stack: Stack) -> None:
    """The custom job carries the learner's arguments and the reference to the worker (never further)."""
    stack.start_recorder()
    stack.start_runner("runner-a")
    _web, base = stack.start_web()
    client = WebClient(base)
    client.signup()
    response = client.client.post(
        "/api/problems/add-tensors/submissions",
        json={
            "code": BAD,
            "mode": "custom",
            "input_text": "{'a': {'tensor': [5.0]}, 'b': {'tensor': [2.0]}}",
        },
        headers={"X-CSRF-Token": client.token},
    )
    assert response.status_code == 202, response.text[:500]
    view = client.verdict(int(response.json()["id"]))
    assert (view["mode"], view["verdict"]) == ("custom", "wrong_answer"), view
    [case] = view["cases"]
    assert "[7.0]" in case["expected"] and "[3.0]" in case["actual"]  # 5 + 2 by the reference, 5 - 2 by BAD
    assert "return a + b" not in response.text + str(view)
    client.close()
