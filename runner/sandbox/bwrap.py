"""The sandbox's outer wall: bubblewrap's command line (what is mounted, read-only, and which
capabilities the zygote keeps), and the host checks before it can be built."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from runner.testing import sealed

RUNNER_DIR = Path(__file__).resolve().parents[1]  # the whole runner package, mounted read-only
SANDBOX_LIB = "/opt/torchdrill"


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be built on this host; the runner refuses to start."""


def python_runtime_paths() -> list[str]:
    """Directories holding the Python runtime and installed packages, read-only in the sandbox."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return sorted(p for p in paths if p and not p.startswith("/usr"))


def check_host() -> str:
    """Path to bwrap, or SandboxUnavailable with a message that says how to fix it."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`. "
            "Torchdrill never runs learner code without its sandbox."
        )
    probe = subprocess.run(
        [bwrap, "--unshare-all", "--ro-bind", "/", "/", "--", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        raise SandboxUnavailable(f"bubblewrap cannot create namespaces here: {probe.stderr.strip()}")
    if os.geteuid() != 0:
        raise SandboxUnavailable("the runner must run as root to set per-job cgroups and uids")
    try:  # the zygote runs this interpreter (sys.executable), so its guard can run only if this can
        sealed.require_supported()
    except sealed.UnsupportedInterpreter as exc:
        raise SandboxUnavailable(str(exc)) from None
    return bwrap


def bwrap_command(
    bwrap: str, control_fd: int, cgroup_binds: list[tuple[str, str]], zygote_procs: str | None = None
) -> list[str]:
    cmd = [
        bwrap,
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        "--cap-drop",
        "ALL",
        "--cap-add",
        "CAP_SYS_ADMIN",
        "--cap-add",
        "CAP_SETUID",
        "--cap-add",
        "CAP_SETGID",
        "--cap-add",
        "CAP_SETPCAP",
        "--cap-add",
        "CAP_SYS_RESOURCE",
        "--cap-add",
        "CAP_SYS_NICE",  # a spare warms up at idle priority and returns to normal (warmup.warm_spare)
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/sbin",
        "/sbin",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        # A mount of its own, the job group binds under it: a spare detaches the whole tree with
        # one unmount (runner.sandbox.lockdown.prepare_spare), so one RCU grace period, not one a controller.
        "--tmpfs",
        "/cg",
    ]
    if os.path.exists("/etc/ld.so.cache"):
        cmd += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    for path in python_runtime_paths():
        cmd += ["--ro-bind", path, path]
    cmd += ["--ro-bind", str(RUNNER_DIR), f"{SANDBOX_LIB}/runner"]
    for host, inside in cgroup_binds:
        cmd += ["--bind", host, inside]
    cmd += ["--remount-ro", "/", "--clearenv"]
    from runner.sandbox.control import SAFE_ENV

    for key, value in SAFE_ENV.items():
        cmd += ["--setenv", key, value]
    cmd += ["--setenv", "PYTHONPATH", SANDBOX_LIB, "--chdir", "/tmp"]
    cmd += [sys.executable, "-s", "-m", "runner.sandbox.zygote", str(control_fd)]
    if zygote_procs is not None:
        cmd.append(zygote_procs)  # the zygote joins its CPU group (runner.sandbox.cgroups.ZygoteCgroup)
    return cmd
