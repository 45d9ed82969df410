"""One-line fields refuse control characters on every route, with a clear 422, and store nothing.

The corpus is what would act on a terminal, spreadsheet or page instead of showing as text: C0
and C1 controls (escape sequences, BEL, line breaks, tab, NEL, 8-bit CSI), and format characters
(bidirectional overrides and isolates, zero-width space, BOM, Arabic letter mark). Each reaches
the server through real HTTP (``live_server``), through the pages and the API alike: course
titles and terms, assignment titles, roster sections, token names, sign-up emails, and
``problem.toml`` titles, categories and tags in the authoring API, its zip import and its
validation. SQLite and PostgreSQL, like every app test.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from runner.format.fields import forbidden_character
from runner.format.problem import ProblemFormatError, build_problem, read_problem_files
from runner.format.tracks import parse_tracks
from tests.app.api_v1.conftest import ApiAccount, make_account
from tests.app.authoring.helpers import AUTHORING_FIXTURES, WALKTHROUGH
from tests.app.cli.conftest import live_server
from tests.app.http_clients import api_client, csrf_of, page_client

CONTROLS = {
    "escape-sequence": "\x1b[2J",
    "osc-title": "\x1b]0;t\x07",
    "bell": "\x07",
    "newline": "\n",
    "carriage-return": "\r",
    "tab": "\t",
    "delete": "\x7f",
    "next-line-c1": "\x85",
    "csi-c1": "\x9b",
    "right-to-left-override": "\u202e",
    "left-to-right-isolate": "\u2066",
    "zero-width-space": "\u200b",
    "byte-order-mark": "\ufeff",
    "arabic-letter-mark": "\u061c",
}
IDS = list(CONTROLS)
__all__ = ["live_server", "make_account"]  # fixtures of other folders, used here


def _with(control: str) -> str:
    return f"Week{control}one"


@pytest.mark.parametrize("name", IDS)
def test_the_rule_names_the_character(name: str) -> None:
    found = forbidden_character(_with(CONTROLS[name]))
    assert found is not None and found.startswith(f"U+{ord(CONTROLS[name][0]):04X}")


@pytest.mark.parametrize("text", ["Week 1: tensors", "Ünïcode – ok", "数据", "emoji 🔥", "a/b & c"])
def test_plain_one_line_text_passes(text: str) -> None:
    assert forbidden_character(text) is None


def _refused(answer: httpx.Response, field: str) -> None:
    assert answer.status_code == 422, answer.text[:500]
    assert "one line of plain text" in answer.text and field in answer.text


@pytest.mark.parametrize("name", IDS)
def test_course_and_assignment_fields_refuse_controls_on_page_and_api(
    name: str, make_account: Callable[..., ApiAccount], live_server: str
) -> None:
    teacher = make_account("instructor")
    api, page = api_client(live_server, teacher.token), page_client(live_server, teacher.email)
    bad = _with(CONTROLS[name])
    _refused(api.post("/api/v1/courses", json={"title": bad}), "title")
    _refused(api.post("/api/v1/courses", json={"title": "Fine", "term": bad}), "term")
    _refused(page.post("/courses", data={"title": bad, "csrf_token": page.headers["X-CSRF-Token"]}), "title")
    assert api.get("/api/v1/courses").json()["items"] == []  # nothing was stored

    course = api.post("/api/v1/courses", json={"title": "Fine"}).json()
    when = {"release_at": "2026-01-01T00:00:00+00:00", "due_at": "2099-01-01T00:00:00+00:00"}
    _refused(
        api.post(
            f"/api/v1/courses/{course['id']}/assignments",
            json={"title": bad, "problems": ["add-tensors"], **when},
        ),
        "title",
    )
    form = {
        "title": bad,
        "problems": "add-tensors",
        "release_at": "2026-01-01T00:00",
        "due_at": "2099-01-01T00:00",
        "csrf_token": page.headers["X-CSRF-Token"],
    }
    _refused(page.post(f"/courses/{course['id']}/assignments", data=form), "title")
    _refused(
        api.post(
            f"/api/v1/courses/{course['id']}/assignments",
            json={"title": "Fine", "problems": ["add-tensors"], "lti_line_item_id": bad, **when},
        ),
        "lti_line_item_id",
    )
    assert api.get(f"/api/v1/courses/{course['id']}").json()["assignments"] == []


def test_a_roster_line_with_a_control_in_its_section_is_skipped_with_the_reason(
    make_account: Callable[..., ApiAccount], live_server: str
) -> None:
    teacher = make_account("instructor")
    api = api_client(live_server, teacher.token)
    course = api.post("/api/v1/courses", json={"title": "Roster"}).json()
    rows = ["email,section", "ok@example.com,A"] + [
        f"{name}@example.com,{_with(c)}" for name, c in CONTROLS.items() if c not in "\n\r"
    ]
    text = "\r\n".join(f'{r.split(",")[0]},"{r.split(",", 1)[1]}"' for r in rows)
    answer = api.post(f"/api/v1/courses/{course['id']}/roster", json={"csv": text})
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert [i["email"] for i in report["invited"]] == ["ok@example.com"]  # the good line still counts
    assert [s["line"] for s in report["skipped"]] == list(range(3, len(rows) + 1))
    assert all("section must be one line of plain text" in s["reason"] for s in report["skipped"])


@pytest.mark.parametrize("name", ["escape-sequence", "right-to-left-override", "zero-width-space", "tab"])
def test_token_names_code_labels_and_sign_up_emails_refuse_controls(
    name: str, make_account: Callable[..., ApiAccount], live_server: str
) -> None:
    learner = make_account()
    page = page_client(live_server, learner.email)
    made = page.post(
        "/account/tokens", data={"name": _with(CONTROLS[name]), "csrf_token": page.headers["X-CSRF-Token"]}
    )
    assert made.status_code == 422 and "one line of plain text" in made.text, made.text[:300]

    staff = page_client(live_server, make_account("instructor").email)
    code = staff.post(
        "/account/codes",
        data={
            "uses": "5",
            "days": "30",
            "label": _with(CONTROLS[name]),
            "csrf_token": staff.headers["X-CSRF-Token"],
        },
    )
    assert code.status_code == 400 and "class name must be one line of plain text" in code.text

    visitor = httpx.Client(base_url=live_server)
    email = f"ada{CONTROLS[name]}@example.com"
    signed = visitor.post(
        "/signup",
        data={"email": email, "password": "correct horse battery", "csrf_token": csrf_of(visitor, "/signup")},
    )
    assert signed.status_code in (400, 422) and "valid email" in signed.text, signed.status_code


def _files_with(key: str, value: str) -> dict[str, str]:
    files = read_problem_files(AUTHORING_FIXTURES / WALKTHROUGH)
    toml = files["problem.toml"]
    if key == "tags":
        toml = toml.replace('tags = ["hooks",', f"tags = [{json.dumps(value)},")
    else:
        line = next(line for line in toml.splitlines() if line.startswith(f"{key} = "))
        toml = toml.replace(line, f"{key} = {json.dumps(value)}")
    files["problem.toml"] = toml
    return files


@pytest.mark.parametrize("key", ["title", "category", "tags"])
@pytest.mark.parametrize("name", ["escape-sequence", "right-to-left-override", "newline", "next-line-c1"])
def test_problem_toml_fields_refuse_controls_in_every_authoring_route(
    key: str, name: str, make_account: Callable[..., ApiAccount], live_server: str, tmp_path: Path
) -> None:
    files = _files_with(key, _with(CONTROLS[name]))
    with pytest.raises(ProblemFormatError, match="one line of plain text"):
        build_problem("clobber", files)

    author = make_account("instructor")
    api = api_client(live_server, author.token)
    slug = f"ctl-{key}"
    _refused(api.post("/api/v1/authoring/problems", json={"slug": slug, "files": files}), key)
    report = api.post(f"/api/v1/authoring/problems/{slug}/validate", json={"files": files})
    assert report.status_code == 200 and report.json()["ok"] is False  # validation answers with its report
    assert any(f"{key} must be one line of plain text" in e["message"] for e in report.json()["errors"])
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        for rel, text in files.items():
            zf.writestr(f"{slug}/{rel}", text)
    uploaded = api.post(
        "/api/v1/authoring/import", files={"file": ("p.zip", archive.getvalue(), "application/zip")}
    )
    _refused(uploaded, key)
    assert api.get(f"/api/v1/authoring/problems/{slug}").status_code == 404  # nothing was stored


def test_tracks_toml_titles_refuse_controls() -> None:
    source = '[[track]]\nslug = "t"\ntitle = "A\\u202eB"\norder = 1\ndescription = "d"\n'
    with pytest.raises(ProblemFormatError, match="one line of plain text"):
        parse_tracks(source.replace('slug = "t"', 'slug = "tt"'))
