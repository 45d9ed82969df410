"""Helpers of the solutions browser tests: a scratch problem (with an editorial) imported from the
bank format, accounts with API tokens, and accepted submissions made through the API."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from app.accounts import tokens
from app.accounts.models import User
from app.kit.db import utcnow
from tests.browser.conftest import ROOT, Server
from tests.browser.test_courses import _import

RIGHT = "import torch\n\n\ndef add(a, b):\n    return a + b\n"


# A statement and learn section of add-tensors in the full format, which validation asks for.
FULL_FORMAT = Path(__file__).parent / "fixtures" / "add-tensors-full"


def scratch_problem(
    server: Server, tmp_path: Path, editorial: str, tag: str, publishable: bool = False
) -> str:
    """A copy of the fixture bank's add-tensors under a new slug, with ``editorial.md``; when it is
    to be published again through the authoring form (which validates it first), with its mutants
    and the statement and learn section in the full format."""
    slug = f"browser-{tag}-{uuid.uuid4().hex[:6]}"
    folder = tmp_path / slug
    shutil.copytree(
        ROOT / "tests/app/fixtures/bank/add-tensors",
        folder,
        ignore=None if publishable else shutil.ignore_patterns("mutants"),
    )
    if publishable:
        for name in ("statement.md", "learn.md"):
            shutil.copyfile(FULL_FORMAT / name, folder / name)
    (folder / "editorial.md").write_text(editorial)
    toml = folder / "problem.toml"
    # Last in its track, so that no other test's "next problem" after add-tensors is a probe.
    toml.write_text(
        toml.read_text()
        .replace('title = "Add Two Tensors"', f'title = "Solutions Probe {slug[-6:]}"')
        .replace("\norder = 1\n", "\norder = 1000\n")
    )
    _import(server, tmp_path)
    return slug


class Api:
    """An account's API client (a bearer token made in the database)."""

    def __init__(self, server: Server, email: str) -> None:
        with server.database.transaction() as session:
            user = session.scalars(select(User).where(User.email == email)).one()
            _row, token = tokens.create_token(session, user, "browser", utcnow())
        self.email = email
        self.token = token
        self.client = httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=90
        )

    def solve(self, slug: str, code: str = RIGHT) -> int:
        response = self.client.post("/api/v1/submissions", params={"wait": "true", "timeout": 60},
                                    json={"problem": slug, "code": code, "mode": "submit"})  # fmt: skip
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert body["verdict"] == "accepted", body
        return int(body["id"])

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.client.get(url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.client.post(url, **kwargs)
