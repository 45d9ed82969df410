"""Learners for ``python -m bench.web``: concurrent ``POST …?wait=true`` loops in their own process.

They run in a separate (spawned) process so that the bench process is the web process alone and
its CPU time is the web path's (request handling, the embedded judge's host side), not the
clients'. Plain ``http.client`` with one keep-alive connection per learner, to 127.0.0.1 only.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LoadResult:
    latencies_ms: list[float] = field(default_factory=list)
    outcomes: list[tuple[int, str]] = field(default_factory=list)  # (submission id, verdict)
    wall_s: float = 0.0
    cpu_s: float = 0.0  # this process's CPU (the learners', their HTTP and JSON) over the run
    errors: list[str] = field(default_factory=list)


def _request(conn: http.client.HTTPConnection, method: str, path: str, headers: dict[str, str],
             body: bytes | None = None) -> tuple[int, dict[str, Any]]:  # fmt: skip
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def one_submission(conn: http.client.HTTPConnection, token: str, body: bytes) -> tuple[int, str]:
    """Submit once (retries reuse the Idempotency-Key) and wait for the verdict."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Idempotency-Key": uuid.uuid4().hex}  # fmt: skip
    for attempt in range(3):
        try:
            status, view = _request(conn, "POST", "/api/v1/submissions?wait=true", headers, body)
            break
        except (OSError, http.client.HTTPException):
            conn.close()
            if attempt == 2:
                raise
    if status not in (200, 202):
        raise RuntimeError(f"unexpected answer {status}: {view}")
    while view["status"] != "finished":
        _status, view = _request(conn, "GET", f"/api/v1/submissions/{view['id']}?wait=true", headers)
    return int(view["id"]), str(view["verdict"])


def run_load(port: int, tokens: list[str], body: dict[str, Any], clients: int, total: int) -> LoadResult:
    """``clients`` learners submit and wait in a loop until ``total`` verdicts are in; learner
    ``i`` signs in with ``tokens[i % len(tokens)]`` (its own account, given one per learner)."""
    data = json.dumps(body).encode()
    result = LoadResult()
    lock = threading.Lock()
    remaining = [total]

    def learner(token: str) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            while True:
                with lock:
                    if remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                started = time.perf_counter()
                outcome = one_submission(conn, token, data)
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    result.latencies_ms.append(elapsed)
                    result.outcomes.append(outcome)
        except Exception as exc:  # reported, and the level fails its checks
            with lock:
                result.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            conn.close()

    threads = [threading.Thread(target=learner, args=(tokens[i % len(tokens)],)) for i in range(clients)]
    started, cpu = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.wall_s = time.perf_counter() - started
    result.cpu_s = time.process_time() - cpu
    return result
