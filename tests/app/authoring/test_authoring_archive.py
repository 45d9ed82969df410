"""Problem zips: download/upload round-trips exactly; unsafe uploads are refused with the reason."""

from __future__ import annotations

import io
import stat
import zipfile
from typing import Any

import pytest

from tests.app.authoring.helpers import WALKTHROUGH, call

API = "/api/v1/authoring"


def _zip(entries: list[tuple[str, bytes]], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
        if symlink is not None:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, b"/etc/passwd")
    return buffer.getvalue()


def _folder(files: dict[str, str], top: str = WALKTHROUGH) -> list[tuple[str, bytes]]:
    return [(f"{top}/{rel}", text.encode()) for rel, text in files.items()]


def _upload(browser: Any, data: bytes, slug: str | None = None) -> Any:
    form = {"slug": slug} if slug else {}
    return call(
        browser, "POST", f"{API}/import", files={"file": ("p.zip", data, "application/zip")}, data=form
    )


def test_download_then_upload_round_trips_exactly(author: Any, walkthrough_files: dict[str, str]) -> None:
    assert _upload(author, _zip(_folder(walkthrough_files))).status_code == 201
    downloaded = author.get(f"/authoring/problems/{WALKTHROUGH}/download")
    assert downloaded.headers["content-type"] == "application/zip"
    assert downloaded.headers["content-disposition"] == f'attachment; filename="{WALKTHROUGH}.zip"'
    with zipfile.ZipFile(io.BytesIO(downloaded.content)) as zf:
        assert sorted(zf.namelist()) == sorted(f"{WALKTHROUGH}/{rel}" for rel in walkthrough_files)
        assert {
            n.removeprefix(f"{WALKTHROUGH}/"): zf.read(n).decode() for n in zf.namelist()
        } == walkthrough_files

    copy = _upload(author, downloaded.content, slug="norms-copy")  # the slug field overrides the folder
    assert copy.status_code == 201 and copy.json()["files"] == walkthrough_files
    again = _upload(author, downloaded.content)  # into the existing draft
    assert again.status_code == 200 and again.json()["source"] == "draft"


def test_a_zip_without_a_folder_needs_a_slug(author: Any, walkthrough_files: dict[str, str]) -> None:
    flat = _zip([(rel, text.encode()) for rel, text in walkthrough_files.items()])
    refused = _upload(author, flat)
    assert refused.status_code == 422 and "no top-level <slug>/ folder" in refused.json()["detail"]
    assert _upload(author, flat, slug="flat-upload").status_code == 201


@pytest.mark.parametrize(
    ("mutate", "status", "reason"),
    [
        (lambda e: [*e, ("linear-output-norms/../../evil.py", b"x")], 422, "'..' is not allowed"),
        (lambda e: [*e, ("/etc/cron.d/evil", b"x")], 422, "absolute or Windows paths"),
        (lambda e: [*e, ("linear-output-norms/setup.sh", b"x")], 422, "setup.sh: not a problem file"),
        (
            lambda e: [*e, ("linear-output-norms/mutants/a/b.py", b"x")],
            422,
            "mutants/a/b.py: not a problem file",
        ),
        (lambda e: [*e, e[0]], 422, "appears twice"),
        (lambda e: [*e, ("other-folder/tests.py", b"x")], 422, "not a problem file"),
        (lambda e: [*e, ("linear-output-norms/mutants/big.py", b"#" * (600 * 1024))], 413, "mutants/big.py"),
        (lambda e: [*e, ("linear-output-norms/mutants/bin.py", b"\xff\xfe")], 422, "not UTF-8"),
    ],
)
def test_unsafe_zips_are_refused(
    author: Any, walkthrough_files: dict[str, str], mutate: Any, status: int, reason: str
) -> None:
    response = _upload(author, _zip(mutate(_folder(walkthrough_files))))
    assert response.status_code == status, response.text
    assert reason in response.json()["detail"]
    listed = call(author, "GET", f"{API}/problems").json()["problems"]
    assert all(p["slug"] != WALKTHROUGH for p in listed)  # nothing stored


def test_symlinks_bombs_and_garbage_are_refused(author: Any, walkthrough_files: dict[str, str]) -> None:
    link = _upload(author, _zip(_folder(walkthrough_files), symlink="linear-output-norms/mutants/x.py"))
    assert link.status_code == 422 and "symlinks are not allowed" in link.json()["detail"]
    # 500 KiB of one letter deflates to ~500 bytes: within the size limit, but not a text anyone wrote
    entries = [(n, d) for n, d in _folder(walkthrough_files) if not n.endswith("learn.md")]
    bomb = _zip([*entries, ("linear-output-norms/learn.md", b"a" * (500 * 1024))])
    refused = _upload(author, bomb)
    assert refused.status_code == 422 and "suspicious compression ratio" in refused.json()["detail"]
    garbage = _upload(author, b"PK\x03\x04 not really a zip")
    assert garbage.status_code == 422 and garbage.json()["error"] == "invalid_archive"
    huge = _upload(author, b"0" * (3 * 1024 * 1024))
    assert huge.status_code == 413 and huge.json()["error"] == "payload_too_large"


def test_the_upload_page_reports_a_bad_zip(author: Any) -> None:
    csrf = author.csrf("/authoring")
    page = author.post(
        "/authoring/upload", data={"csrf_token": csrf}, files={"file": ("p.zip", b"nope", "application/zip")}
    )
    assert page.status_code == 422 and "The upload is not a zip file" in page.text
