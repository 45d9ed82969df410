"""The web path alone: ``bench.web``'s scale table with the sandbox taken out.

The first job is judged for real (the sandbox, the verdict's checks); every later job gets a copy
of that verdict at once. Everything else runs as in production: HTTP, the token, the submission's
transaction, the dispatcher and a judge thread, the verdict's recording, the waiting answer. So
the web process's CPU per verdict printed here is what the web path costs without the runner
(its host side, the threads around it, and the sandbox's processes competing for the CPUs),
measured on one busy CPU instead of two shared with the spares: a figure for comparing changes
to the web path, steadier than the full benchmark's (docs/benchmarks.md, the fifteenth pass).

    .venv/bin/python -m bench.web_path                    # 4 learners, 3,000 verdicts
    .venv/bin/python -m bench.web_path --levels 1,4,16 --per-level 2000
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import threading
from pathlib import Path

from app.kit.runner import JudgeRunner, default_runner
from app.main import create_app
from bench import speedprobe
from bench.judge import DEFAULT_PROBLEM
from bench.web import free_port, prepare_site, print_scale, scale_levels, start_server
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, Job, JudgeResult, Mode


class ReplayingRunner:
    """A :class:`JudgeRunner` that judges the first job and answers every later one with a copy
    of that verdict (the benchmark submits the same code to the same problem every time)."""

    def __init__(self, real: JudgeRunner) -> None:
        self._real = real
        self._first: JudgeResult | None = None
        self._lock = threading.Lock()

    def compute_expectations(self, problem: ProblemFiles) -> Expectations:
        return self._real.compute_expectations(problem)

    def judge(self, job: Job) -> JudgeResult:
        with self._lock:
            if self._first is None:
                self._first = self._real.judge(job)
            return dataclasses.replace(self._first)

    def job_for(
        self, problem: ProblemFiles, expectations: Expectations, code: str, mode: Mode, job_id: str = ""
    ) -> Job:
        return self._real.job_for(problem, expectations, code, mode, job_id)

    def runtime_info(self) -> dict[str, str]:
        return self._real.runtime_info()

    def ready(self) -> bool:
        return self._real.ready()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", type=Path, default=DEFAULT_PROBLEM, help="a free problem folder")
    parser.add_argument("--levels", default="4", help="concurrent learners")
    parser.add_argument("--per-level", type=int, default=3000, help="verdicts per level")
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",") if n.strip()]
    probe = speedprobe.probe_ms()
    problem = load_problem_dir(args.problem)
    runner = ReplayingRunner(default_runner())
    site = prepare_site(args.problem, problem.slug, max(levels), runner)
    port = free_port()
    server, thread = start_server(create_app(site.settings, database=site.db, runner=runner), port)
    body = {"problem": problem.slug, "code": problem.solution, "mode": "submit"}
    try:
        rows = scale_levels(port, site.learners, body, levels, args.per_level, site.db, site.user_ids)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        site.db.dispose()
        shutil.rmtree(site.workdir, ignore_errors=True)
    print(f"the web path alone ({problem.slug}: every verdict after the first one replayed)")
    print_scale(rows)
    print(speedprobe.describe(probe, speedprobe.probe_ms()))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
