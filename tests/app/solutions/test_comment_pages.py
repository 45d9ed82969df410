"""A solution's page shows its comments in keyset pages of 50 (Newer comments / First comments),
each comment on exactly one page, and a new comment lands on the page that shows it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.app.api_v1.conftest import ApiAccount
from tests.app.conftest import Browser


def test_a_solution_page_pages_its_comments(
    published: tuple[ApiAccount, dict[str, Any]],
    admin: Browser,
    with_settings: Callable[..., None],
) -> None:
    with_settings(solution_posts_per_minute=1000)
    author, solution = published
    url = f"/solutions/{solution['id']}"
    ids = []
    for i in range(53):
        made = author.post(f"/api/v1{url}/comments", json={"body": f"Comment number {i}."})
        assert made.status_code == 201, made.text
        ids.append(made.json()["id"])
    first = admin.get(url)
    assert first.status_code == 200
    assert [int(i) for i in re.findall(r'id="comment-(\d+)"', first.text)] == ids[:50]
    assert "Newer comments" in first.text and "First comments" not in first.text
    newer = re.search(r'href="([^"]+)" id="newer-comments"', first.text)
    assert newer is not None
    second = admin.get(newer.group(1).replace("&amp;", "&"))
    assert [int(i) for i in re.findall(r'id="comment-(\d+)"', second.text)] == ids[50:]
    assert "Newer comments" not in second.text and "First comments" in second.text
    posted = admin.post(
        f"{url}/comments", data={"body": "The admin's late word.", "csrf_token": admin.csrf(url)}
    )
    assert posted.status_code == 303 and "?after=" in posted.headers["location"]
    landed = admin.get(posted.headers["location"])
    assert "The admin&#39;s late word." in landed.text or "The admin's late word." in landed.text
    assert admin.get(f"{url}?after=garbage").status_code == 422
