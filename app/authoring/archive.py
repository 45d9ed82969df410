"""A problem folder as a zip file: download from the editor, upload into a draft.

Uploads are untrusted. Nothing is ever written to disk: entries are read into memory with
hard limits (archive size, number of entries, each file's size, total size, compression
ratio), and refused when they are symlinks, encrypted, absolute or contain ``..``, are not
one of the files a problem folder may hold, or appear twice. A single top-level folder
(``<slug>/``, as downloads produce) is allowed and names the problem.
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
import zlib

from app.kit.errors import InvalidInput, PayloadTooLarge
from runner.format.problem import EDITORIAL_FILE, MAX_FILE_BYTES, REQUIRED_FILES, SLUG_RE

MAX_ZIP_BYTES = 2 * 1024 * 1024
MAX_ENTRIES = 64
MAX_TOTAL_BYTES = 4 * 1024 * 1024
MAX_RATIO = 200  # uncompressed / compressed, per entry (zip bombs)
MUTANT_RE = re.compile(r"^mutants/[A-Za-z0-9_][A-Za-z0-9_-]{0,63}\.py$")
# Accepted alternative solutions (runner/format/problem.py): the same names as mutants.
ALTERNATIVE_RE = re.compile(r"^alternatives/[A-Za-z0-9_][A-Za-z0-9_-]{0,63}\.py$")
FIXED_DATE = (1980, 1, 1, 0, 0, 0)
NAMED_FILES = (*REQUIRED_FILES, EDITORIAL_FILE)  # editorial.md is optional, the others required
ALLOWED_FILES = ", ".join(NAMED_FILES) + ", mutants/<name>.py and alternatives/<name>.py"


class ArchiveError(InvalidInput):
    code = "invalid_archive"


def allowed_name(rel: str) -> bool:
    return rel in NAMED_FILES or bool(MUTANT_RE.match(rel) or ALTERNATIVE_RE.match(rel))


def to_zip(slug: str, files: dict[str, str]) -> bytes:
    """A reproducible zip of ``<slug>/...``: same files, same bytes (fixed dates, sorted)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for rel in sorted(files):
            info = zipfile.ZipInfo(f"{slug}/{rel}", date_time=FIXED_DATE)
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[rel].encode("utf-8"))
    return buffer.getvalue()


def _entry_path(name: str) -> list[str]:
    if "\\" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise ArchiveError(f"{name}: absolute or Windows paths are not allowed in a problem zip")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise ArchiveError(f"{name}: '..' is not allowed in a problem zip (path traversal)")
    return parts


def from_zip(data: bytes) -> tuple[str | None, dict[str, str]]:
    """(slug from the top-level folder or None, path -> text) of an uploaded problem zip."""
    if len(data) > MAX_ZIP_BYTES:
        raise PayloadTooLarge(f"The zip is {len(data)} bytes; the limit is {MAX_ZIP_BYTES // 1024} KiB.")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ArchiveError(
            "The upload is not a zip file: download a problem to see the expected layout."
        ) from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise ArchiveError(
                f"The zip has {len(infos)} entries; a problem folder has at most {MAX_ENTRIES}."
            )
        entries: list[tuple[list[str], zipfile.ZipInfo]] = []
        for info in infos:
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError(f"{info.filename}: symlinks are not allowed in a problem zip")
            if info.flag_bits & 0x1:
                raise ArchiveError(f"{info.filename}: encrypted entries are not supported")
            parts = _entry_path(info.filename)
            if info.is_dir() or not parts:
                continue
            if parts[-1] in ("__pycache__", ".DS_Store") or parts[0] == "__MACOSX" or "__pycache__" in parts:
                continue
            entries.append((parts, info))
        if not entries:
            raise ArchiveError(
                "The zip is empty: it must hold problem.toml, statement.md, ... (a problem folder)."
            )
        slug: str | None = None
        tops = {parts[0] for parts, _ in entries}
        if len(tops) == 1 and all(len(parts) > 1 for parts, _ in entries):
            slug = tops.pop()
            entries = [(parts[1:], info) for parts, info in entries]
            if not SLUG_RE.match(slug):
                raise ArchiveError(
                    f"{slug}/: the folder name is not a valid slug (lowercase letters, digits, dashes)"
                )
        files: dict[str, str] = {}
        total = 0
        for parts, info in entries:
            rel = "/".join(parts)
            if not allowed_name(rel):
                raise ArchiveError(f"{rel}: not a problem file; allowed are {ALLOWED_FILES}")
            if rel in files:
                raise ArchiveError(f"{rel}: appears twice in the zip")
            if info.file_size > MAX_FILE_BYTES:
                raise PayloadTooLarge(
                    f"{rel}: {info.file_size} bytes; a file may have {MAX_FILE_BYTES // 1024} KiB"
                )
            if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > 64 * 1024:
                raise ArchiveError(f"{rel}: suspicious compression ratio (a zip bomb?)")
            try:
                with zf.open(info) as fh:  # read at most the limit: the declared size may lie
                    raw = fh.read(MAX_FILE_BYTES + 1)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
                raise ArchiveError(f"{rel}: the zip entry is damaged or unsupported ({exc})") from None
            if len(raw) > MAX_FILE_BYTES:
                raise PayloadTooLarge(f"{rel}: larger than {MAX_FILE_BYTES // 1024} KiB")
            total += len(raw)
            if total > MAX_TOTAL_BYTES:
                raise PayloadTooLarge(f"The zip unpacks to more than {MAX_TOTAL_BYTES // 1024} KiB.")
            try:
                files[rel] = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ArchiveError(f"{rel}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return slug, files
