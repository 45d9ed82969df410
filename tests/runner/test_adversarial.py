"""Attacks on the real sandbox. Each asserts the verdict AND that the host is unaffected.

Network tests target 127.0.0.1 only; nothing here tries to reach another address.
"""

from __future__ import annotations

import ast
import os
import socket
import textwrap
import threading
from pathlib import Path

import pytest

from runner import jobs
from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn
from tests.runner.hostcheck import wait_no_sandbox_processes

REPO = Path(__file__).resolve().parents[2]


def code(src: str) -> str:
    return textwrap.dedent(src).lstrip()


def observed(result: jobs.JudgeResult) -> str:
    """What the probe returned in the public case (shown as 'actual')."""
    return str(result.cases[0].actual)


@pytest.fixture(autouse=True)
def host_is_clean_after() -> None:
    yield
    assert wait_no_sandbox_processes() == [], "a sandboxed process outlived its job"


# --- time ---------------------------------------------------------------------------------


def test_infinite_loop_is_time_limit_exceeded(judge_probe: JudgeFn) -> None:
    result = judge_probe(code("def probe():\n    while True:\n        pass\n"), time_s=1.5)
    assert result.verdict == Verdict.TIME_LIMIT_EXCEEDED
    assert "1.5 s" in result.message


def test_sleep_is_time_limit_exceeded(judge_probe: JudgeFn) -> None:
    result = judge_probe(code("import time\ndef probe():\n    time.sleep(60)\n"), time_s=1.0)
    assert result.verdict == Verdict.TIME_LIMIT_EXCEEDED


# --- memory ---------------------------------------------------------------------------------


def test_python_memory_bomb_is_memory_limit_exceeded(judge_probe: JudgeFn) -> None:
    src = "def probe():\n    hog = []\n    while True:\n        hog.append(bytearray(16 * 2**20))\n"
    result = judge_probe(src, memory_mb=300, time_s=8)
    assert result.verdict == Verdict.MEMORY_LIMIT_EXCEEDED
    assert "300 MB" in result.message


def test_torch_memory_bomb_is_memory_limit_exceeded(judge_probe: JudgeFn) -> None:
    src = "import torch\ndef probe():\n    x = torch.ones(2**30)\n    return float(x.sum())\n"
    result = judge_probe(src, memory_mb=300, time_s=8)
    assert result.verdict == Verdict.MEMORY_LIMIT_EXCEEDED


def test_import_torch_works_under_the_memory_limit(judge_probe: JudgeFn) -> None:
    # An address-space limit would make this fail; a resident-memory limit does not.
    src = code("""
        import torch, torch.nn as nn
        def probe():
            return int(nn.Linear(2, 2)(torch.ones(1, 2)).numel()) - 2
    """)
    assert judge_probe(src, memory_mb=256).verdict == Verdict.ACCEPTED


# --- processes -------------------------------------------------------------------------------
# Judged code gets no new thread or process unless its problem allows them
# (tests/runner/redteam/test_single_task.py); these run as a problem that allows them, to check
# what contains them then.


def test_fork_bomb_is_contained(judge_probe: JudgeFn) -> None:
    src = code("""
        import os
        def probe():
            pids = 0
            try:
                for _ in range(10_000):
                    if os.fork() == 0:
                        import time
                        time.sleep(30)
                        os._exit(0)
                    pids += 1
            except OSError as exc:
                return f"stopped after {pids}: {exc.strerror}"
            return pids
    """)
    result = judge_probe(src, time_s=5, threads=True)
    assert result.verdict != Verdict.ACCEPTED
    assert "stopped after" in observed(result)
    assert "stopped after 0" not in observed(result)  # the pids limit stopped it, not the refusal


def test_thread_bomb_is_contained(judge_probe: JudgeFn) -> None:
    src = code("""
        import threading, time
        def probe():
            n = 0
            try:
                for _ in range(10_000):
                    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
                    n += 1
            except RuntimeError as exc:
                return f"stopped after {n}"
            return n
    """)
    result = judge_probe(src, time_s=5, threads=True)
    assert result.verdict != Verdict.ACCEPTED
    assert "stopped after" in observed(result)
    assert "stopped after 0" not in observed(result)


def test_daemon_does_not_outlive_the_run(judge_probe: JudgeFn) -> None:
    src = code("""
        import os, time
        def probe():
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(120)
                os._exit(0)
            return 0
    """)
    result = judge_probe(src, threads=True)
    assert result.verdict == Verdict.ACCEPTED  # the run itself is fine ...
    # ... and the autouse fixture checks that the grandchild is gone from the host.


def test_a_job_s_processes_share_one_cpu_group_whatever_sessions_they_start(judge_probe: JudgeFn) -> None:
    # With the kernel's autogroups, a process in no CPU group gets a share of the CPU of its own
    # for each session it starts: a job could take more than its share by starting sessions.
    # Each job is one CPU group (runner.sandbox.cgroups), which also holds its priority.
    src = code("""
        import os
        def cpu_group():
            lines = [line.split(":", 2) for line in open("/proc/self/cgroup").read().splitlines()]
            for _, controllers, path in lines:
                if "cpu" in controllers.split(","):
                    return path  # cgroup v1
            return next(path for _, controllers, path in lines if controllers == "")  # v2
        def probe():
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    os.setsid()  # a session of its own
                    os.write(write_end, cpu_group().encode())
                finally:
                    os._exit(0)
            os.close(write_end)
            theirs = os.read(read_end, 4096).decode()
            os.waitpid(pid, 0)
            return [cpu_group(), theirs]
    """)
    mine, theirs = ast.literal_eval(observed(judge_probe(src, threads=True)))
    assert "/torchdrill/job-" in mine, mine
    assert theirs == mine


def test_a_job_sees_no_cgroup_tree(judge_probe: JudgeFn) -> None:
    # The spare joins its job's groups through the sandbox's binds of the job group tree under
    # /cg, then unmounts them before it reads the job: learner code must find neither the binds
    # nor any cgroup filesystem mounted, so it cannot raise its own limits or touch other jobs.
    src = code("""
        import os
        def probe():
            mounts = open("/proc/self/mountinfo").read().splitlines()
            cgroups = [line for line in mounts if "cgroup" in line or " /cg" in line]
            return [sorted(os.listdir("/cg")), cgroups]
    """)
    entries, mounts = ast.literal_eval(observed(judge_probe(src)))
    assert entries == [] and mounts == [], (entries, mounts)


def test_killing_parent_and_process_group_fails_and_runner_survives(judge_probe: JudgeFn) -> None:
    src = code("""
        import os, signal
        def probe():
            for target in (os.getppid(), 1):
                try:
                    os.kill(target, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
            return 0
    """)
    result = judge_probe(src)
    # kill(-1) only reaches the job's own uid, so the probe survives to return; either way
    # the zygote and the rest of the platform are still there for the next job.
    assert result.verdict in (Verdict.ACCEPTED, Verdict.RUNTIME_ERROR)
    assert judge_probe("def probe():\n    return 0\n").verdict == Verdict.ACCEPTED


# --- network ---------------------------------------------------------------------------------


def test_no_network_not_even_to_the_hosts_loopback(judge_probe: JudgeFn) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.1)
    port = server.getsockname()[1]
    accepted: list[object] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept())
            except TimeoutError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    src = code(f"""
        import socket
        def probe():
            out = []
            for family in (socket.AF_INET, socket.AF_INET6):
                try:
                    s = socket.socket(family, socket.SOCK_STREAM)
                    s.settimeout(1)
                    s.connect(("127.0.0.1", {port}) if family == socket.AF_INET else ("::1", {port}))
                    out.append("connected")
                except OSError as exc:
                    out.append(type(exc).__name__)
            return out
    """)
    try:
        result = judge_probe(src)
    finally:
        stop.set()
        thread.join()
        server.close()
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "connected" not in observed(result)
    assert accepted == []


def test_no_dns_and_no_interfaces(judge_probe: JudgeFn) -> None:
    src = code("""
        import os, socket
        def probe():
            facts = {"resolv.conf": os.path.exists("/etc/resolv.conf")}
            try:
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                facts["udp"] = "created"
            except OSError as exc:
                facts["udp"] = type(exc).__name__
            try:
                facts["ifaces"] = [name for _, name in socket.if_nameindex()]
            except OSError as exc:
                facts["ifaces"] = type(exc).__name__
            return facts
    """)
    result = judge_probe(src)
    assert result.verdict == Verdict.WRONG_ANSWER
    text = observed(result)
    assert "'resolv.conf': False" in text
    assert "'udp': 'PermissionError'" in text
    assert "eth" not in text and "ens" not in text


# --- host files, secrets, other processes -------------------------------------------------------


def test_host_files_are_out_of_reach(judge_probe: JudgeFn) -> None:
    repo = str(REPO)
    src = code(f"""
        import os
        def probe():
            seen = {{}}
            for path in ("/etc/shadow", "/etc/passwd", "{repo}/problems", "{repo}/var", "{repo}/app",
                         "/root/.ssh", "/var/lib/postgresql", "{repo}/runner/../problems"):
                seen[path] = os.path.exists(path)
            seen["repo"] = sorted(os.listdir("{repo}")) if os.path.isdir("{repo}") else []
            return seen
    """)
    result = judge_probe(src)
    text = observed(result)
    assert "True" not in text, text
    assert "'repo': ['.venv']" in text or "'repo': []" in text


def test_expected_values_never_enter_the_sandbox(runner, probe) -> None:  # type: ignore[no-untyped-def]
    problem, expectations = probe
    marker = "9876.54321"
    # Expectations with a value the learner can't guess: search every readable file and the environment.
    from runner.jobs import CaseExpectation, Expectations

    secret = Expectations(
        cases=tuple(
            CaseExpectation(c.name, c.public, c.rtol, c.atol, float(marker)) for c in expectations.cases
        )
    )
    src = code(f"""
        import os
        MARKER = "{marker[:4]}".encode() + "{marker[4:]}".encode()  # never spelled whole in this file
        def probe():
            hits = []
            for root, dirs, files in os.walk("/", onerror=lambda e: None):
                if root.startswith(("/proc", "/sys", "/usr", "/dev")) or ".venv" in root or "pyenv" in root:
                    dirs[:] = []
                    continue
                for name in files:
                    try:
                        with open(os.path.join(root, name), "rb") as fh:
                            if MARKER in fh.read(1 << 20):
                                hits.append(os.path.join(root, name))
                    except OSError:
                        pass
            for pid in os.listdir("/proc"):
                try:
                    if MARKER in open(f"/proc/{{pid}}/cmdline", "rb").read():
                        hits.append(pid)
                except OSError:
                    pass
            return hits
    """)
    result = runner.judge(runner.job_for(problem, secret, src, "submit"))
    assert result.verdict == Verdict.WRONG_ANSWER
    assert result.cases[0].actual == "[]"


def test_environment_secrets_and_other_processes_are_invisible(judge_probe: JudgeFn) -> None:
    os.environ["TORCHDRILL_SECRET_KEY"] = "do-not-leak-42"
    os.environ["TORCHDRILL_DATABASE_URL"] = "postgresql://secret@db/prod"
    try:
        src = code("""
            import os
            def probe():
                env = dict(os.environ)
                leaked = [k for k, v in env.items() if "leak" in v or "secret" in v or "DATABASE" in k]
                pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
                others = []
                for pid in pids:
                    try:
                        environ = open(f"/proc/{pid}/environ", "rb").read()
                    except OSError:
                        continue
                    if b"leak" in environ or b"DATABASE" in environ:
                        others.append(pid)
                return {"leaked": leaked, "others": others, "visible": len(pids), "uid": os.getuid()}
        """)
        result = judge_probe(src)
    finally:
        del os.environ["TORCHDRILL_SECRET_KEY"], os.environ["TORCHDRILL_DATABASE_URL"]
    text = observed(result)
    assert "'leaked': []" in text and "'others': []" in text
    assert "'visible': 1" in text  # only itself
    assert "'uid': 0" not in text


def test_the_environment_is_exactly_the_safe_one(judge_probe: JudgeFn) -> None:
    # Set once in the zygote (runner.sandbox.lockdown.set_job_environment): not the judge's PYTHONPATH, and
    # nothing torch's import added.
    from runner.sandbox.control import SAFE_ENV

    result = judge_probe(
        code("""
        import os
        def probe():
            return sorted(os.environ.items())
    """)
    )
    assert ast.literal_eval(observed(result)) == [list(item) for item in sorted(SAFE_ENV.items())]


def test_every_job_starts_from_fresh_random_state(judge_probe: JudgeFn) -> None:
    # runner.sandbox.seeding.reseed: none of it inherited from the zygote, so no job can predict another's.
    src = code("""
        import random, numpy, torch
        def probe():
            return [torch.initial_seed(), torch.rand(1).item(), random.random(), numpy.random.rand()]
    """)
    states = [ast.literal_eval(observed(judge_probe(src))) for _ in range(3)]
    for position in range(4):
        assert len({state[position] for state in states}) == 3, states


def test_writing_outside_tmp_is_refused(judge_probe: JudgeFn) -> None:
    repo = str(REPO)
    src = code(f"""
        import os
        def probe():
            results = {{}}
            for path in ("/evil", "/usr/evil", "{repo}/.venv/evil", "/etc/evil", "/tmp/ok"):
                try:
                    with open(path, "w") as fh:
                        fh.write("x")
                    results[path] = "written"
                except OSError as exc:
                    results[path] = type(exc).__name__
            return results
    """)
    result = judge_probe(src)
    text = observed(result)
    assert text.count("written") == 1 and "'/tmp/ok': 'written'" in text
    assert not (REPO / ".venv" / "evil").exists()
    assert not Path("/evil").exists()


def test_filling_the_disk_stays_in_the_sandbox(judge_probe: JudgeFn) -> None:
    before = os.statvfs("/").f_bavail
    src = code("""
        def probe():
            written = 0
            try:
                with open("/tmp/fill", "wb") as fh:
                    while True:
                        fh.write(b"x" * 2**20)
                        written += 1
            except OSError as exc:
                return f"stopped at {written} MB: {exc.strerror}"
    """)
    result = judge_probe(src, time_s=10)
    assert result.verdict != Verdict.ACCEPTED
    after = os.statvfs("/").f_bavail
    assert abs(after - before) * os.statvfs("/").f_frsize < 50 * 2**20


def test_output_flood_is_output_limit_exceeded(judge_probe: JudgeFn) -> None:
    src = "import os\ndef probe():\n    while True:\n        os.write(1, b'x' * 65536)\n"
    result = judge_probe(src, time_s=5)
    assert result.verdict == Verdict.OUTPUT_LIMIT_EXCEEDED


def test_a_file_left_in_tmp_is_not_seen_by_the_next_submission(judge_probe: JudgeFn) -> None:
    judge_probe("def probe():\n    open('/tmp/left-behind', 'w').write('secret')\n    return 0\n")
    src = "import os\ndef probe():\n    return os.listdir('/tmp')\n"
    result = judge_probe(src)
    assert "left-behind" not in observed(result)


def test_symlink_to_host_file_in_tmp_reads_nothing(judge_probe: JudgeFn) -> None:
    src = code("""
        import os
        def probe():
            os.symlink("/etc/shadow", "/tmp/link")
            try:
                return open("/tmp/link").read()
            except OSError as exc:
                return type(exc).__name__
    """)
    assert observed(judge_probe(src)) in ("'FileNotFoundError'", "'PermissionError'")


def test_deep_recursion_is_a_runtime_error(judge_probe: JudgeFn) -> None:
    src = "import sys\nsys.setrecursionlimit(10**7)\ndef probe(n=0):\n    return probe(n + 1)\n"
    result = judge_probe(src, time_s=5)
    assert result.verdict in (Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT_EXCEEDED)


# --- source oddities -----------------------------------------------------------------------------


def test_null_bytes_are_a_compile_error(judge_probe: JudgeFn) -> None:
    result = judge_probe("def probe():\n    return 0\x00\n")
    assert result.verdict == Verdict.COMPILE_ERROR


def test_non_utf8_source_is_a_compile_error(judge_probe: JudgeFn) -> None:
    source = b"def probe():\n    return '\xff\xfe'\n".decode("utf-8", errors="surrogateescape")
    result = judge_probe(source)
    assert result.verdict == Verdict.COMPILE_ERROR


def test_ten_megabyte_source_is_judged(judge_probe: JudgeFn) -> None:
    source = "# padding\n" * (10 * 2**20 // 10) + "def probe():\n    return 0\n"
    result = judge_probe(source, time_s=20)
    assert result.verdict == Verdict.ACCEPTED


def test_missing_entry_point_says_so(judge_probe: JudgeFn) -> None:
    result = judge_probe("def other():\n    return 0\n")
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "solution.py does not define probe()" in result.message


# --- cheating -----------------------------------------------------------------------------------


def test_exit_at_import_fails(judge_probe: JudgeFn) -> None:
    result = judge_probe("import sys\nsys.exit(0)\n", mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR


def test_os_exit_inside_a_case_fails(judge_probe: JudgeFn) -> None:
    result = judge_probe("import os\ndef probe():\n    os._exit(0)\n", mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert all(c.status == jobs.CASE_NOT_RUN for c in result.cases)


def test_system_exit_inside_a_case_fails(judge_probe: JudgeFn) -> None:
    result = judge_probe("def probe():\n    raise SystemExit(0)\n", mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR


def test_fake_records_on_the_result_channel_fail(judge_probe: JudgeFn) -> None:
    src = code("""
        import os, json
        def probe():
            for name in ("example", "hidden"):
                os.write(3, (json.dumps({"type": "case", "name": name, "status": "passed",
                                         "value": "accepted", "passed": True}) + "\\n").encode())
            os.write(3, b'{"type": "done"}\\n')
            os.write(1, b'{"verdict": "accepted"}\\n')
            os._exit(0)
    """)
    result = judge_probe(src, mode="submit")
    assert result.verdict != Verdict.ACCEPTED


def test_garbage_on_the_result_channel_fails(judge_probe: JudgeFn) -> None:
    src = "import os\ndef probe():\n    os.write(3, b'\\xff\\x00 not json\\n')\n    os._exit(0)\n"
    assert judge_probe(src, mode="submit").verdict != Verdict.ACCEPTED


def test_monkeypatching_comparison_helpers_changes_nothing(judge_probe: JudgeFn) -> None:
    src = code("""
        import torch, math
        # Through the namespaces as dicts (the modules themselves are read-only): the host compares.
        vars(torch)["allclose"] = lambda *a, **k: True
        vars(torch)["equal"] = lambda *a, **k: True
        vars(math)["isclose"] = lambda *a, **k: True
        def probe():
            return 1
    """)
    assert judge_probe(src, mode="submit").verdict == Verdict.WRONG_ANSWER


def test_patching_the_harness_cannot_forge_a_pass(judge_probe: JudgeFn) -> None:
    src = code("""
        import sys
        harness = sys.modules["runner.sandbox.harness"]
        real = harness.ResultChannel.send
        def send(self, record):
            if record.get("type") == "case":
                record["status"] = "ok"
                record["value"] = "trust me"
            return real(self, record)
        harness.ResultChannel.send = send
        def probe():
            raise RuntimeError("not solved")
    """)
    # The harness writes records with a sealed function bound before the learner's import
    # (runner.sandbox.sealed_records): the patch changes nothing, the case's own error stands.
    result = judge_probe(src, mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "not solved" in result.message or "not solved" in result.cases[0].message


def test_killing_its_own_harness_fails(judge_probe: JudgeFn) -> None:
    src = "import os, signal\ndef probe():\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    result = judge_probe(src, mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR


def test_no_namespaces_mounts_or_ptrace_for_learner_code(runner, probe) -> None:  # type: ignore[no-untyped-def]
    # The guard refuses ctypes to learner code (tests/runner/testing/test_integrity.py); this checks the
    # layer below it, the sandbox itself, with a job sent without a guard (``"guard": False``).
    problem, _ = probe
    src = code("""
        import ctypes, ctypes.util, os
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        def attempt(fn, *args):
            return "ok" if fn(*args) == 0 else os.strerror(ctypes.get_errno())
        def probe():
            return {
                "unshare_user": attempt(libc.unshare, 0x10000000),
                "unshare_net": attempt(libc.unshare, 0x40000000),
                "mount": attempt(libc.mount, b"none", b"/tmp", b"tmpfs", 0, None),
                "ptrace": attempt(libc.ptrace, 16, 1, None, None),
                "uid": os.getuid(),
                "caps": open("/proc/self/status").read().split("CapEff:")[1].split()[0],
                "bounding": open("/proc/self/status").read().split("CapBnd:")[1].split()[0],
                "nice": os.getpriority(os.PRIO_PROCESS, 0),
                "raise_priority": attempt(libc.setpriority, 0, 0, -5),
            }
    """)
    payload = {
        "code": src,
        "tests_source": problem.tests,
        "entry_point": problem.entry_point,
        "cases": None,
        "guard": False,
    }
    raw = runner.run_payload(payload, problem.limits)
    text = str(next(r for r in raw.records if r.get("name") == "example").get("value"))
    assert "'ok'" not in text, text
    assert "'caps': '0000000000000000'" in text
    assert "'bounding': '0000000000000000'" in text, text
    assert "'nice': 0," in text, text  # never the spare's idle priority (runner.sandbox.warmup.warm_spare)
