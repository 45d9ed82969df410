"""The lock file (requirements.lock, hashes for every dependency) agrees with the pins people edit."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s;\\]+)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.split("[")[0]).lower()


def _pins(path: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        found = PIN.match(line.strip())
        if found:
            pins[_norm(found.group(1))] = found.group(2)
    return pins


def test_every_pin_is_locked_at_its_version() -> None:
    locked = {name: version.split("+")[0] for name, version in _pins(ROOT / "requirements.lock").items()}
    wanted = _pins(ROOT / "requirements.txt") | _pins(ROOT / "requirements-dev.txt")
    stale = {n: (v, locked.get(n)) for n, v in wanted.items() if locked.get(n) != v.split("+")[0]}
    assert not stale, f"requirements.lock is out of date (run `make lock`): {stale}"


def test_every_locked_package_has_a_hash() -> None:
    blocks = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / "requirements.lock").read_text())
    entries = [b for b in blocks if PIN.match(b)]
    assert len(entries) > 50
    assert all("--hash=sha256:" in b for b in entries), [b.split()[0] for b in entries if "--hash" not in b]
