"""Real-HTTP clients for the course privacy attacks: a bearer-token API client and a browser-like
cookie session (log-in form, CSRF), both speaking to the live uvicorn server on 127.0.0.1, and the
routes through which an instructor could read a student's work."""

from __future__ import annotations

import csv
import io
import re
import uuid
import zipfile
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx

from app.accounts import service, tokens
from app.courses import repository
from app.kit.db import Database, utcnow
from tests.app.conftest import PASSWORD
from tests.app.courses import helpers


@dataclass
class Person:
    """An account with an API token and a logged-in cookie session on the live server."""

    id: int
    email: str
    api: httpx.Client
    web: httpx.Client

    def csrf(self, page: str = "/courses") -> str:
        found = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.web.get(page).text)
        assert found, f"{page} has no CSRF token"
        return found.group(1)

    def form(self, url: str, data: dict[str, str] | None = None, page: str = "/courses") -> httpx.Response:
        return self.web.post(url, data={"csrf_token": self.csrf(page)} | (data or {}))

    def close(self) -> None:
        self.api.close()
        self.web.close()


def person(db: Database, server: str, role: str = "student", email: str | None = None) -> Person:
    email = email or f"{role}-{uuid.uuid4().hex[:10]}@example.com"
    with db.transaction() as session:
        user = service.sign_up(session, email, PASSWORD, role=role)
        _token, plain = tokens.create_token(session, user, "privacy tests", utcnow())
        user_id = user.id
    api = httpx.Client(base_url=server, headers={"Authorization": f"Bearer {plain}"}, timeout=60)
    web = httpx.Client(base_url=server, follow_redirects=False, timeout=60)
    who = Person(user_id, email, api, web)
    logged = web.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": who.csrf("/login")})
    assert logged.status_code == 303, logged.text
    return who


SECRET = "# private-practice-"  # every stored submission's code starts with it, then its marker


def stored(
    db: Database, who: Person, slug: str, at: datetime | None = None, verdict: str = "accepted"
) -> tuple[int, str]:
    """A judged submission of ``who`` stored at ``at`` (now by default); (its id, its unique code)."""
    with db.transaction() as session:
        user = repository.get_user(session, who.id)
        assert user is not None
        submission = helpers.stored_submit(session, user, slug, at or utcnow(), verdict)
        submission.code = f"{SECRET}{uuid.uuid4().hex}\ndef add(a, b):\n    return a + b\n"
        return submission.id, submission.code


def history(db: Database, who: Person, times: list[datetime], slugs: tuple[str, ...]) -> list[int]:
    """Stored submissions of ``who`` at these times on these problems (every other one accepted)."""
    return [
        stored(db, who, slugs[i % len(slugs)], at, "accepted" if i % 2 == 0 else "wrong_answer")[0]
        for i, at in enumerate(times)
    ]


def drill_down_api(teacher: Person, course_id: int, student_id: int) -> tuple[int, list[int], list[Any]]:
    url: str | None = f"/api/v1/courses/{course_id}/students/{student_id}?limit=5"
    ids: list[int] = []
    assignments: list[Any] = []
    while url:
        response = teacher.api.get(url)
        if response.status_code != 200:
            return response.status_code, ids, assignments
        body = response.json()
        ids += [a["id"] for a in body["attempts"]]
        assignments = body["assignments"]
        url = body["next"]
    return 200, ids, assignments


def drill_down_page(teacher: Person, course_id: int, student_id: int) -> tuple[int, list[int], str]:
    url: str | None = f"/courses/{course_id}/students/{student_id}"
    ids: list[int] = []
    text = ""
    while url:
        response = teacher.web.get(url)
        if response.status_code != 200:
            return response.status_code, ids, text
        text += response.text
        ids += [int(i) for i in re.findall(r'data-submission="(\d+)"', response.text)]
        found = re.search(r'<a href="([^"]+)" id="attempts-older"', response.text)
        url = found.group(1).replace("&amp;", "&") if found else None
    return 200, ids, text


def gradebook_row(teacher: Person, course_id: int, email: str) -> dict[str, float] | None:
    body = teacher.api.get(f"/api/v1/courses/{course_id}/gradebook?limit=100").json()
    for row in body["students"]:
        if row["email"] == email:
            return dict(row["scores"])
    return None


def csv_row(teacher: Person, course_id: int, email: str) -> list[str] | None:
    response = teacher.api.get(f"/api/v1/courses/{course_id}/gradebook.csv")
    assert response.status_code == 200
    for row in csv.reader(io.StringIO(response.content.decode("utf-8-sig"))):
        if len(row) > 1 and row[1] == email:
            return row
    return None


def xlsx_text(teacher: Person, course_id: int) -> str:
    response = teacher.api.get(f"/api/v1/courses/{course_id}/gradebook.xlsx")
    assert response.status_code == 200
    book = zipfile.ZipFile(io.BytesIO(response.content))
    return "".join(book.read(n).decode() for n in book.namelist() if n.endswith(".xml"))
