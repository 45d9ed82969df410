"""Small steps the discussion and moderation tests share."""

from __future__ import annotations

from typing import Any

from tests.app.api_v1.conftest import ApiAccount

SUM_OF_SQUARES = "def sum_of_squares(x):\n    return float((x ** 2).sum().item())\n"


def ask(account: ApiAccount, slug: str = "add-tensors", title: str = "Why keepdim?",
        body: str = "Shapes differ without it.") -> dict[str, Any]:  # fmt: skip
    made = account.post(f"/api/v1/problems/{slug}/threads", json={"title": title, "body": body})
    assert made.status_code == 201, made.text
    thread: dict[str, Any] = made.json()
    return thread


def answer(account: ApiAccount, thread_id: int, body: str = "Use `keepdim=True`.") -> dict[str, Any]:
    made = account.post(f"/api/v1/threads/{thread_id}/replies", json={"body": body})
    assert made.status_code == 201, made.text
    reply: dict[str, Any] = made.json()
    return reply


def solve(account: ApiAccount, slug: str = "sum-of-squares", code: str = SUM_OF_SQUARES) -> None:
    done = account.submit(slug, code, "submit", wait="true", timeout=60)
    assert done.status_code == 200 and done.json()["verdict"] == "accepted", done.text


def listed(account: ApiAccount, slug: str = "add-tensors") -> list[int]:
    answer_ = account.get(f"/api/v1/problems/{slug}/threads")
    assert answer_.status_code == 200, answer_.text
    return [t["id"] for t in answer_.json()["items"]]


def patch(account: ApiAccount, url: str, body: dict[str, Any]) -> Any:
    return account.client.patch(url, json=body, headers={"Authorization": f"Bearer {account.token}"})
