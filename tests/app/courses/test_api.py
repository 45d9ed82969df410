"""The courses REST API end to end: roles, join, assignments, course access, gradebook, CSV/XLSX."""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import UTC, datetime, timedelta

from app.courses import gradebook, repository
from app.kit.db import Database, utcnow


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat()


def test_roles_and_visibility(make_account) -> None:
    teacher, student, outsider = make_account("instructor"), make_account(), make_account()
    refused = student.post("/api/v1/courses", json={"title": "Mine"})
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    created = teacher.post("/api/v1/courses", json={"title": "Deep learning", "term": "Spring"})
    assert created.status_code == 201
    course = created.json()
    assert course["id"] and course["join_code"] and course["role"] == "instructor"
    cid = course["id"]
    assert outsider.get(f"/api/v1/courses/{cid}").status_code == 404
    missing = student.post("/api/v1/courses/join", json={"code": "NOPE-NOPE"})
    assert missing.status_code == 404 and set(missing.json()) == {"error", "detail"}
    joined = student.post("/api/v1/courses/join", json={"code": course["join_code"]})
    assert joined.status_code == 200 and joined.json()["id"] == cid and "join_code" not in joined.json()
    assert [c["id"] for c in student.get("/api/v1/courses").json()["items"]] == [cid]
    assert student.get(f"/api/v1/courses/{cid}").status_code == 200
    for url in (f"/api/v1/courses/{cid}/gradebook", f"/api/v1/courses/{cid}/gradebook.csv"):
        assert student.get(url).status_code == 404
        assert outsider.get(url).status_code == 404
        assert teacher.get(url).status_code == 200
    bad = teacher.post(
        f"/api/v1/courses/{cid}/assignments",
        json={
            "title": "x",
            "problems": ["add-tensors"],
            "release_at": "2027-01-01T00:00:00",
            "due_at": "2027-01-02T00:00:00+00:00",
        },
    )
    assert bad.status_code == 422 and bad.json()["error"] == "invalid_input"
    hidden = teacher.post(
        f"/api/v1/courses/{cid}/assignments",
        json={
            "title": "Later",
            "problems": ["add-tensors"],
            "release_at": _iso(utcnow() + timedelta(days=1)),
            "due_at": _iso(utcnow() + timedelta(days=2)),
        },
    )
    assert hidden.status_code == 201
    aid = hidden.json()["id"]
    assert student.get(f"/api/v1/courses/{cid}").json()["assignments"] == []
    assert student.get(f"/api/v1/courses/{cid}/assignments/{aid}").status_code == 404
    assert [a["id"] for a in teacher.get(f"/api/v1/courses/{cid}").json()["assignments"]] == [aid]
    assert student.post(f"/api/v1/courses/{cid}/assignments", json={}).status_code in (404, 422)


def test_course_access_submission_and_gradebook_agree(make_account, db: Database, code_of) -> None:
    teacher, student, other, outsider = (
        make_account("instructor"),
        make_account(),
        make_account(),
        make_account(),
    )
    cid = teacher.post("/api/v1/courses", json={"title": "Tensors"}).json()["id"]
    code = teacher.get(f"/api/v1/courses/{cid}").json()["join_code"]
    for s in (student, other):
        assert s.post("/api/v1/courses/join", json={"code": code}).status_code == 200
    now = utcnow()
    created = teacher.post(
        f"/api/v1/courses/{cid}/assignments",
        json={
            "title": "Week 1, ünïcode",
            "problems": ["scale-rows", "add-tensors"],
            "release_at": (now - timedelta(hours=1)).astimezone().isoformat(),
            "due_at": _iso(now + timedelta(days=1)),
            "late": [{"until": _iso(now + timedelta(days=2)), "credit": 50}],
        },
    )
    assert created.status_code == 201
    aid = created.json()["id"]
    # the assignment's Premium problem opens to its students, not to anybody else
    assert outsider.submit("scale-rows", code_of("scale-rows"), wait="true").status_code == 403
    done = student.submit("scale-rows", code_of("scale-rows"), wait="true")
    assert done.status_code == 200 and done.json()["verdict"] == "accepted"
    view = student.get(f"/api/v1/courses/{cid}/assignments/{aid}").json()
    assert view["score"] == 50.0
    assert {p["slug"]: p["status"] for p in view["problem_status"]} == {
        "scale-rows": "solved",
        "add-tensors": "todo",
    }

    book = teacher.get(f"/api/v1/courses/{cid}/gradebook").json()
    by_email = {s["email"]: s for s in book["students"]}
    assert by_email[student.email]["scores"] == {str(aid): 50.0}
    assert by_email[other.email]["scores"] == {str(aid): 0.0}

    raw = teacher.get(f"/api/v1/courses/{cid}/gradebook.csv")
    assert raw.headers["content-type"].startswith("text/csv")
    assert raw.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.content.decode("utf-8-sig"))))
    assert rows[0] == ["name", "email", "id", "section", "Week 1, ünïcode", "total"]
    with db.transaction() as session:  # a fresh recomputation agrees with both
        course = repository.get_course(session, cid)
        assert course is not None
        again = gradebook.build(session, course)
        expected = {r.email: [str(v) for v in r.scores] for r in again.rows}
    assert {r[1]: r[4:5] for r in rows[1:]} == expected
    assert {e: [str(v) for v in s["scores"].values()] for e, s in by_email.items()} == expected

    xlsx = teacher.get(f"/api/v1/courses/{cid}/gradebook.xlsx")
    assert xlsx.status_code == 200
    assert "xl/workbook.xml" in zipfile.ZipFile(io.BytesIO(xlsx.content)).namelist()

    drill = teacher.get(f"/api/v1/courses/{cid}/students/{by_email[student.email]['id']}").json()
    attempt = drill["attempts"][0]
    assert attempt["code"] == code_of("scale-rows") and attempt["cases"]
    assert attempt["problem"] == "scale-rows"
    assert drill["assignments"][0]["problems"][0]["slug"] == "scale-rows" and drill["next"] is None
    assert student.get(f"/api/v1/courses/{cid}/students/{by_email[student.email]['id']}").status_code == 404
    # the student's own submission is still 404 to the instructor's ordinary submission routes
    assert teacher.get(f"/api/v1/submissions/{done.json()['id']}").status_code == 404


def test_cli_exports_the_gradebook(make_account, live_server, tmp_path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from app.cli.main import app as cli

    teacher = make_account("instructor")
    cid = teacher.post("/api/v1/courses", json={"title": "CLI course"}).json()["id"]
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "config.json"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["login", "--server", live_server, "--token", teacher.token]).exit_code == 0
    result = runner.invoke(cli, ["course", "export", str(cid), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"course-{cid}-gradebook.csv").read_bytes().startswith(b"\xef\xbb\xbfname,email,id")
    result = runner.invoke(cli, ["course", "export", str(cid), "--format", "xlsx", "-o", "g.xlsx"])
    assert result.exit_code == 0 and zipfile.is_zipfile(tmp_path / "g.xlsx")
    assert runner.invoke(cli, ["course", "export", str(cid), "--format", "pdf"]).exit_code == 2
    assert runner.invoke(cli, ["course", "export", "999999"]).exit_code == 2
