"""The runner as its own service process: a job in over a unix socket, its result out."""

from __future__ import annotations

import threading
from pathlib import Path

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.transport.service import RunnerClient, RunnerServer
from tests.runner.conftest import FIXTURES


def test_judges_over_a_unix_socket(runner: Runner, tmp_path: Path) -> None:
    path = str(tmp_path / "runner.sock")
    server = RunnerServer(path, runner)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        problem = load_problem_dir(FIXTURES / "add-one")
        expectations = runner.compute_expectations(problem)
        client = RunnerClient(path)
        assert client.runtime_info() == runner.runtime_info()
        good = client.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
        bad = client.judge(runner.job_for(problem, expectations, "def add_one(x):\n    return x\n", "submit"))
        assert good.verdict == "accepted" and bad.verdict == "wrong_answer"
        assert bad.cases[0].expected is not None  # public details survive the trip
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
