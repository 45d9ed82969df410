"""Similarity across a class: the ranking on a real class, boilerplate, and the instructors-only
pages, CSV and API attacked over HTTP (students, outsiders, other courses' instructors)."""

from __future__ import annotations

import csv
import io
import re
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from app.accounts.service import sign_up
from app.courses import fingerprints, forms, repository
from app.kit.db import Database, utcnow
from tests.app.conftest import PASSWORD, Browser
from tests.app.courses import helpers
from tests.app.courses.similarity_class import honest_class, planted_copy

SGD = Path(__file__).parents[3] / "problems" / "custom-sgd-optimizer"


def _sgd_boilerplate() -> fingerprints.Boilerplate:
    statement = fingerprints.statement_code((SGD / "statement.md").read_text())
    return fingerprints.Boilerplate((SGD / "starter.py").read_text(), statement)


@pytest.mark.parametrize("copied", [0, 7, 13, 22, 29])
def test_a_planted_copy_ranks_above_every_honest_pair(copied: int) -> None:
    honest = honest_class()
    works = [(f"s{i}", code) for i, code in enumerate(honest)] + [("copy", planted_copy(honest[copied]))]
    ranked = fingerprints.rank(works, _sgd_boilerplate())
    top = ranked[0]
    assert {top.left, top.right} == {f"s{copied}", "copy"}
    honest_best = max(p.score for p in ranked if "copy" not in (p.left, p.right))
    assert top.score > honest_best + 0.05, (top.score, honest_best)


def test_starter_and_statement_code_are_not_evidence() -> None:
    starter = (SGD / "starter.py").read_text()
    statement = fingerprints.statement_code((SGD / "statement.md").read_text())
    assert "losses" in statement  # the statement's example output block
    for given in (starter, statement):
        assert fingerprints.rank([("a", given), ("b", given)], _sgd_boilerplate()) == []
    both = starter + "\n" + statement  # only the few k-grams across the seam are new
    assert fingerprints.rank([("a", both), ("b", both)], _sgd_boilerplate()) == []
    given = starter
    assert fingerprints.rank([("a", given), ("b", given)], fingerprints.Boilerplate())  # without: a pair


def test_side_by_side_marks_only_shared_code() -> None:
    honest = honest_class()
    shown = fingerprints.side_by_side(honest[3], planted_copy(honest[3]), _sgd_boilerplate())
    assert "".join(s.text for s in shown.left) == honest[3]
    shared = "".join(s.text for s in shown.left if s.shared)
    assert "momentum" in shared and shown.left_share > 0.8
    assert any(not s.shared for s in shown.left)


# --- over HTTP ------------------------------------------------------------------------------------

SCALE_ROWS = [
    "import torch\n\n\ndef scale_rows(x, s):\n    out = torch.empty_like(x)\n"
    "    for i in range(x.shape[0]):\n        out[i] = x[i] * s[i]\n    return out\n",
    "import torch\n\n\ndef scale_rows(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:\n"
    "    return torch.einsum('ij,i->ij', x, s)\n",
]
COPIED = (
    "import torch\n\n\ndef helper(weights, rows):\n    total = []\n    for k, row in enumerate(rows):\n"
    "        total.append(row * weights[k])\n    return torch.stack(total)\n\n\n"
    "def scale_rows(x, s):\n    # </code></pre><script>alert('pwned')</script>\n"
    "    return helper(s, x).reshape(x.shape).to(x.dtype)\n"
)


def renamed_and_reordered(code: str) -> str:
    """Renamed (word by word) and reordered: ``scale_rows`` first, the helper after it."""
    for old, new in (("weights", "w"), ("rows", "mat"), ("total", "acc"), ("helper", "go")):
        code = re.sub(rf"\b{old}\b", new, code)
    helper, main = code.split("\n\n\ndef scale_rows", 1)
    return "import torch\n\n\ndef scale_rows" + main + "\n\n" + helper.replace("import torch\n\n\n", "")


def _instructor(new_browser: Callable[[], Browser], db: Database) -> Browser:
    email = f"teacher-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="instructor")
    b = new_browser()
    assert b.login(email).status_code == 303
    return b


def _post(b: Browser, url: str, data: dict[str, str], page: str = "/courses") -> object:
    return b.post(url, data={"csrf_token": b.csrf(page)} | data)


def _course_with_assignment(teacher: Browser) -> tuple[str, str]:
    course_url = _post(teacher, "/courses", {"title": "Similar"}).headers["location"]  # type: ignore[attr-defined]
    now = utcnow()
    form = {
        "title": "Week 2",
        "problems": "scale-rows",
        "release_at": forms.field_value(now - timedelta(hours=1), "UTC"),
        "due_at": forms.field_value(now + timedelta(days=1), "UTC"),
    }
    made = _post(teacher, f"{course_url}/assignments", form)
    return course_url, made.headers["location"]  # type: ignore[attr-defined]


def _join(student: Browser, teacher: Browser, course_url: str) -> None:
    code = re.search(r'id="join-code">([^<]+)<', teacher.get(course_url).text)
    assert code
    assert _post(student, "/courses/join", {"code": code.group(1)}).status_code == 303  # type: ignore[attr-defined]


def _submit(db: Database, email: str, code: str, verdict: str = "accepted") -> int:
    with db.transaction() as session:
        who = repository.get_user_by_email(session, email)
        assert who is not None
        s = helpers.stored_submit(session, who, "scale-rows", utcnow(), verdict=verdict)
        s.code = code
        session.flush()
        return s.id


def _user_id(db: Database, email: str) -> int:
    with db.transaction() as session:
        who = repository.get_user_by_email(session, email)
        assert who is not None
        return who.id


def test_instructors_see_ranked_pairs_side_by_side_and_nobody_else_does(new_browser, db: Database) -> None:
    teacher, other_teacher = _instructor(new_browser, db), _instructor(new_browser, db)
    course_url, assignment_url = _course_with_assignment(teacher)
    _course_with_assignment(other_teacher)  # an instructor, but of another course
    students = [new_browser() for _ in range(4)]
    outsider = new_browser()
    for b in [*students, outsider]:
        assert b.signup().status_code == 303
    # A student's practice before joining is never the course's, even on the assignment's problem.
    before_joining = _submit(db, students[1].email or "", renamed_and_reordered(COPIED))
    for b in students:
        _join(b, teacher, course_url)
    emails = [b.email or "" for b in students]
    # Work that is not the course's (an outsider's practice) stays out, however similar.
    _submit(db, outsider.email or "", COPIED)
    _submit(db, emails[0], SCALE_ROWS[0])
    # Not accepted: were the earlier accepted copy the course's, it would be compared instead.
    _submit(db, emails[1], SCALE_ROWS[1], verdict="wrong_answer")
    accepted_id = _submit(db, emails[2], COPIED)
    _submit(db, emails[2], SCALE_ROWS[1], verdict="wrong_answer")  # later, but the accepted one counts
    copied_id = _submit(
        db, emails[3], renamed_and_reordered(COPIED), verdict="wrong_answer"
    )  # latest, not accepted
    a, b, out = _user_id(db, emails[2]), _user_id(db, emails[3]), _user_id(db, outsider.email or "")

    page = teacher.get(f"{assignment_url}/similarity")
    assert page.status_code == 200
    rows = re.findall(r'<tr data-pair="(\d+)-(\d+)">', page.text)
    assert rows and {int(rows[0][0]), int(rows[0][1])} == {a, b}
    assert (outsider.email or "") not in page.text
    assert 'id="similarity-link"' in teacher.get(assignment_url).text

    pair = teacher.get(f"{assignment_url}/similarity/scale-rows/{a}/{b}")
    assert pair.status_code == 200
    assert "<script>alert" not in pair.text and "&lt;script&gt;alert(" in pair.text
    assert pair.text.count("<mark>") >= 2 and f"Submission #{copied_id}" in pair.text
    assert f"Submission #{accepted_id}" in pair.text
    early = teacher.get(f"{assignment_url}/similarity/scale-rows/{a}/{_user_id(db, emails[1])}")
    assert early.status_code == 200 and f"Submission #{before_joining}" not in early.text
    assert "einsum" in early.text and "def go(" not in early.text  # their course work, not the earlier copy

    exported = teacher.get(f"{assignment_url}/similarity.csv")
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    table = list(csv.reader(io.StringIO(exported.content.decode("utf-8-sig"))))
    assert table[0][:3] == ["problem", "similarity %", "student A"]
    assert {table[1][2], table[1][6]} == {emails[2], emails[3]} and float(table[1][1]) > 50

    api_url = f"/api/v1{course_url}/assignments/{assignment_url.rsplit('/', 1)[1]}/similarity"
    api = teacher.get(api_url)
    assert api.status_code == 200 and api.json()["pairs"][0]["similarity_percent"] > 50

    urls = [
        f"{assignment_url}/similarity",
        f"{assignment_url}/similarity.csv",
        f"{assignment_url}/similarity/scale-rows/{a}/{b}",
        api_url,
    ]
    for url in urls:
        for intruder in (students[0], students[2], outsider, other_teacher):
            assert intruder.get(url).status_code == 404, (url, intruder.email)
        assert new_browser().get(url).status_code in (303, 401), url  # not signed in
    # An instructor cannot reach code that is not the course's through the pair view.
    assert teacher.get(f"{assignment_url}/similarity/scale-rows/{a}/{out}").status_code == 404
    assert teacher.get(f"{assignment_url}/similarity/scale-rows/{a}/{a}").status_code == 404
    assert teacher.get(f"{assignment_url}/similarity/add-tensors/{a}/{b}").status_code == 404
