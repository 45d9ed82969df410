"""Reporting through /api/v1 with the test client: the rate limit (429 with Retry-After) and its own
window, and a report that changes nothing for the post until a moderator acts."""

from __future__ import annotations

from collections.abc import Callable

from app.kit.settings import Settings
from tests.app.api_v1.conftest import ApiAccount
from tests.app.discussion.helpers import ask, listed


def test_reporting_is_rate_limited_in_its_own_window(make_account: Callable[..., ApiAccount]) -> None:
    askers = [make_account() for _ in range(2)]
    threads = [ask(a, title=f"Q{i}")["id"] for a in askers for i in range(4)]
    reporter = make_account()
    answers = [
        reporter.post("/api/v1/moderation/reports", json={"kind": "thread", "id": t, "reason": "Spam"})
        for t in threads
    ]
    codes = [a.status_code for a in answers]
    per_minute = Settings.model_fields["post_reports_per_minute"].default
    assert codes[:per_minute] == [201] * per_minute and 429 in codes[per_minute:], codes
    refused = next(a for a in answers if a.status_code == 429)
    assert int(refused.headers["Retry-After"]) >= 1 and "reports of posts" in refused.json()["detail"]
    # Its own window: the reporter still posts, and the reported threads are still listed.
    assert ask(reporter, title="Mine")["id"] in listed(reporter)
    assert set(threads) <= set(listed(reporter))


def test_the_reporting_limit_is_a_setting(
    make_account: Callable[..., ApiAccount], with_settings: Callable[..., None]
) -> None:
    """``TORCHDRILL_POST_REPORTS_PER_MINUTE`` sets the window's allowance."""
    with_settings(post_reports_per_minute=2)
    asker = make_account()
    threads = [ask(asker, title=f"Q{i}")["id"] for i in range(4)]
    reporter = make_account()
    codes = [
        reporter.post(
            "/api/v1/moderation/reports", json={"kind": "thread", "id": t, "reason": "Spam"}
        ).status_code
        for t in threads[:3]
    ]
    assert codes == [201, 201, 429]
    with_settings(post_reports_per_minute=1000)
    answer = reporter.post(
        "/api/v1/moderation/reports", json={"kind": "thread", "id": threads[3], "reason": "x"}
    )
    assert answer.status_code == 201
