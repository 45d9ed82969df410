"""Wheels made from what this venv has installed, so a fresh venv installs without any network.

A fresh clone has no wheel files, but `make setup` installed every dependency (from the lock, with
its hashes) into ``.venv``: :func:`build_wheelhouse` packs each installed distribution a package
needs back into a wheel (its files as ``RECORD`` lists them, its tags from ``WHEEL``). Files outside
``site-packages`` (console scripts; pip writes them again from ``entry_points.txt``) and bytecode
are left out. Editable installs are not packed: install those from their source folder.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

SKIPPED = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(names: list[str]) -> list[Distribution]:
    """The installed distributions ``names`` need, with everything they require (markers applied)."""
    seen: dict[str, Distribution] = {}
    todo = list(names)
    while todo:
        name = _canonical(todo.pop())
        if name in seen:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            raise AssertionError(f"{name} is not installed in this venv: run `make setup`") from None
        seen[name] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(seen.values())


def _tag(dist: Distribution) -> str:
    """``py3-none-any`` from the WHEEL file's ``Tag:`` lines (several compress to ``py2.py3-none-any``)."""
    tags = [line.split(":", 1)[1].strip() for line in (dist.read_text("WHEEL") or "").splitlines()
            if line.startswith("Tag:")]  # fmt: skip
    if not tags:
        raise AssertionError(f"{dist.metadata['Name']} has no WHEEL tags (not installed from a wheel)")
    parts = [sorted({t.split("-")[i] for t in tags}) for i in range(3)]
    return "-".join(".".join(p) for p in parts)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def pack(dist: Distribution, out: Path) -> Path:
    """``dist`` as a wheel in ``out``."""
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    wheel = out / f"{name}-{dist.version}-{_tag(dist)}.whl"
    info = f"{name}-{dist.version}.dist-info"
    records: list[str] = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in dist.files or []:
            parts = file.parts
            if parts[0] == ".." or "__pycache__" in parts or file.suffix == ".pyc":
                continue
            if parts[0].endswith(".dist-info") and parts[-1] in SKIPPED:
                continue
            path = Path(str(dist.locate_file(file)))
            if not path.is_file():
                continue
            target = str(file) if not parts[0].endswith(".dist-info") else "/".join((info, *parts[1:]))
            data = path.read_bytes()
            archive.writestr(target, data)
            records.append(_record_line(target, data))
        records.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel


def build_wheelhouse(names: list[str], out: Path) -> list[Path]:
    """Wheels for ``names`` and all they need, in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    return [pack(dist, out) for dist in closure(names)]
