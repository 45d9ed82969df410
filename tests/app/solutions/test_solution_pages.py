"""The solutions pages with a browser's session: the lock and "give up", publishing with a mistake
(the form comes back with what was typed), votes, comments, reporting, "compare with mine", deleting."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.app.conftest import Browser
from tests.app.solutions.conftest import CODE, WRONG_ADD


def judged(browser: Browser, slug: str, code: str) -> int:
    response = browser.submit(slug, code)
    assert response.status_code in (200, 201, 202), response.text
    submission_id = int(response.json()["id"])
    assert browser.verdict(submission_id)["status"] == "finished"
    return submission_id


def form(browser: Browser, url: str, data: dict[str, str], page: str) -> Any:
    return browser.post(url, data={**data, "csrf_token": browser.csrf(page)})


def test_a_learner_publishes_from_the_page_and_another_gives_up_votes_and_comments(
    new_browser: Callable[[], Browser],
) -> None:
    author = new_browser()
    assert author.signup().status_code == 303
    accepted = judged(author, "add-tensors", CODE["add-tensors"])
    listing = "/problems/add-tensors/solutions"
    page = author.get(listing)
    assert page.status_code == 200 and f'value="{accepted}"' in page.text
    bad = form(author, listing, {"submission_id": str(accepted), "title": "Mine", "write_up": "  ",
                                 "tags": "sum, broadcasting"}, listing)  # fmt: skip
    assert bad.status_code == 422 and 'id="publish-error"' in bad.text
    assert 'value="Mine"' in bad.text and 'value="sum, broadcasting"' in bad.text
    done = form(author, listing, {"submission_id": str(accepted), "title": "Mine", "write_up": "It **adds**.",
                                  "tags": "sum, broadcasting"}, listing)  # fmt: skip
    assert done.status_code == 303
    solution_url = done.headers["location"]
    assert re.fullmatch(r"/solutions/\d+", solution_url)
    shown = author.get(solution_url).text
    assert "<strong>adds</strong>" in shown and "Delete my solution" in shown

    reader = new_browser()
    assert reader.signup().status_code == 303
    judged(reader, "add-tensors", WRONG_ADD)
    locked = reader.get(listing)
    assert locked.status_code == 200 and 'id="give-up"' in locked.text and "Mine" not in locked.text
    assert reader.get(solution_url).status_code == 403
    gave = form(reader, "/problems/add-tensors/give-up", {}, listing)
    assert gave.status_code == 303
    opened = reader.get(listing).text
    assert "Mine" in opened and 'id="gave-up-note"' in opened
    assert form(reader, f"{solution_url}/vote", {"action": "up"}, solution_url).status_code == 303
    assert 'id="vote-count">1<' in reader.get(solution_url).text
    empty = form(reader, f"{solution_url}/comments", {"body": ""}, solution_url)
    assert empty.status_code == 422 and 'id="comment-error"' in empty.text
    assert form(reader, f"{solution_url}/comments", {"body": "Thanks!"}, solution_url).status_code == 303
    assert "Thanks!" in author.get(solution_url).text
    # The report form returns to the solution's page, which says what became of the report.
    for reason, said in (("Copied.", "a moderator will look"), ("Again.", "Not reported: ")):
        fields = {"kind": "solution", "id": solution_url.rsplit("/", 1)[1], "reason": reason}
        reported = form(reader, "/moderation/report", fields, solution_url)
        assert reported.status_code == 303 and reported.headers["location"] == solution_url
        assert said in reader.get(solution_url).text, reason
        assert said not in reader.get(solution_url).text  # shown once
    compare = reader.get(f"{solution_url}/compare")
    assert compare.status_code == 200 and "a - b" in compare.text and "a + b" in compare.text
    assert form(author, f"{solution_url}/delete", {}, solution_url).status_code == 303
    assert reader.get(solution_url).status_code == 404
    assert "Mine" not in reader.get(listing).text


def test_the_problem_page_links_to_its_solutions(learner: Browser) -> None:
    assert 'href="/problems/add-tensors/solutions"' in learner.get("/problems/add-tensors").text
