"""Author Markdown cannot shadow the page's own elements: every id it sets is namespaced.

A problem is imported whose statement, learn section and hints set, as ids, every id the problem
page itself uses (``starter-code`` is the one Reset reads, ``hints`` the hint list's section), and
whose ``##`` titles would become section anchors with the page's ids. The rendered page, the
hints API and the authoring preview are checked: each of the page's ids is there exactly once
(the page's own), the author's ids carry ``user-content-``, and an in-page link of the statement
still reaches its heading. SQLite and PostgreSQL, like every app test.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
import uuid
from pathlib import Path
from typing import Any

from app.accounts.service import sign_up
from app.kit.db import Database
from app.kit.markdown import ID_PREFIX
from app.problems.importer import import_bank
from tests.app.conftest import BANK, PASSWORD, SEEDED, Browser

IDS = re.compile(r"""\sid=["']([^"']*)["']""")
SLUG = "clobber-ids"


def ids_of(html: str) -> list[str]:
    return IDS.findall(html)


def hostile_markdown(page_ids: list[str]) -> str:
    headings = "\n".join(f'<h2 id="{i}">{i}</h2>' for i in page_ids)
    return (
        "Intro.\n\n"
        f"{headings}\n\n"
        '<h3 id="shapes">Shapes</h3>\n\n'
        "Tensors of the same shape add element by element; see [shapes](#shapes).\n\n"
        "## Starter code\n\nText.\n\n## Hints\n\nText.\n\n## Editor\n\nText.\n"
    )


def _import(db: Database, runner: Any, tmp_path: Path, page_ids: list[str]) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    shutil.copy(BANK / "tracks.toml", bank / "tracks.toml")
    folder = bank / SLUG
    shutil.copytree(BANK / "add-tensors", folder)
    toml = (folder / "problem.toml").read_text()
    hints = [f'<h4 id="{i}">hint</h4>\n\n[again](#{i})' for i in ("starter-code", "reset-btn", "hints")]
    toml = toml.replace('title = "Add Two Tensors"', 'title = "Add Two Tensors, Clobbering"')
    toml = re.sub(r"^hints = .*$", lambda _: "hints = " + json.dumps(hints), toml, flags=re.M)
    toml = toml.replace("order = 1", "order = 90")
    assert tomllib.loads(toml)["hints"] == hints  # so the check below can fail
    (folder / "problem.toml").write_text(toml)
    statement = (folder / "statement.md").read_text()
    (folder / "statement.md").write_text(statement + "\n" + hostile_markdown(page_ids))
    (folder / "learn.md").write_text(hostile_markdown(page_ids))
    with db.transaction() as session:
        report = import_bank(session, bank, runner)
    assert report.ok, report.summary()


def assert_no_clobbering(html: str, page_ids: list[str]) -> None:
    found = ids_of(html)
    for own in page_ids:
        assert found.count(own) <= 1, f"id {own!r} appears {found.count(own)} times"
    author = [i for i in found if i not in page_ids]
    assert all(i.startswith(ID_PREFIX) for i in author), author


def test_author_ids_never_shadow_the_page_and_anchors_still_work(
    db: Database, runner: Any, learner: Browser, tmp_path: Path
) -> None:
    own_pages = "".join(learner.get(f"/problems/{slug}").text for slug in SEEDED)
    page_ids = sorted({i for i in ids_of(own_pages) if not i.startswith(ID_PREFIX)})
    assert {"starter-code", "hints", "editor", "reset-btn", "problem-title"} <= set(page_ids)
    _import(db, runner, tmp_path, page_ids)

    page = learner.get(f"/problems/{SLUG}")
    assert page.status_code == 200
    assert_no_clobbering(page.text, page_ids)
    for own in ("starter-code", "reset-btn", "hint-list", "editor"):
        assert ids_of(page.text).count(own) == 1, own  # the page's own element is still there
    found = ids_of(page.text)
    for author in ("starter-code", "problem-title", "shapes"):  # statement and learn alike: twice
        assert found.count(ID_PREFIX + author) >= 2, author
    for section in ("starter-code", "hints", "editor"):  # ## titles: namespaced section anchors
        assert ID_PREFIX + section in found
    # the statement's in-page link reaches its heading
    assert f'href="#{ID_PREFIX}shapes"' in page.text and f'id="{ID_PREFIX}shapes"' in page.text
    assert 'href="#shapes"' not in page.text

    # hints: the page's script gets them as HTML, then the page renders them server-side
    csrf = learner.csrf(f"/problems/{SLUG}")
    for _ in range(3):
        revealed = learner.post(f"/api/problems/{SLUG}/hints/next", headers={"X-CSRF-Token": csrf})
        assert revealed.status_code == 200, revealed.text
    hints_html = "".join(revealed.json()["revealed_html"])
    assert ids_of(hints_html) == [ID_PREFIX + i for i in ("starter-code", "reset-btn", "hints")]
    assert f'href="#{ID_PREFIX}starter-code"' in hints_html
    assert_no_clobbering(learner.get(f"/problems/{SLUG}").text, page_ids)


def test_the_authoring_preview_namespaces_ids_as_the_page_does(db: Database, learner: Browser) -> None:
    email = f"instructor-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="instructor")
    author = Browser(learner.client.app)  # type: ignore[arg-type]
    assert author.login(email).status_code == 303
    preview = author.post(
        "/api/v1/authoring/preview",
        json={"markdown": hostile_markdown(["starter-code", "reset-btn"])},
        headers={"X-CSRF-Token": author.csrf("/authoring")},
    )
    assert preview.status_code == 200, preview.text
    html = preview.json()["html"]
    assert ids_of(html) == [ID_PREFIX + "starter-code", ID_PREFIX + "reset-btn", ID_PREFIX + "shapes"]
    assert f'href="#{ID_PREFIX}shapes"' in html
