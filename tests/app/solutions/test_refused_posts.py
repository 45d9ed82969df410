"""A refused post on the solutions pages loses nothing typed: the rate limit (429, with
``Retry-After``) and a conflict come back on the form with the text kept and the reason shown, and
nothing is saved by the refused post nor twice by the one that passed."""

from __future__ import annotations

from collections.abc import Callable

from tests.app.conftest import Browser
from tests.app.courses.test_instructor_forms import value_of
from tests.app.solutions.conftest import CODE
from tests.app.solutions.test_solution_pages import form, judged

LISTING = "/problems/add-tensors/solutions"


def test_a_rate_limited_publish_and_comment_keep_the_typed_text(
    new_browser: Callable[[], Browser], with_settings: Callable[..., None]
) -> None:
    author = new_browser()
    assert author.signup().status_code == 303
    first, second = (judged(author, "add-tensors", CODE["add-tensors"]) for _ in range(2))
    with_settings(solution_posts_per_minute=1)
    fields = {"submission_id": str(first), "title": "Plain addition", "write_up": "It **adds**.",
              "tags": "sum"}  # fmt: skip
    done = form(author, LISTING, fields, LISTING)
    assert done.status_code == 303, done.text
    solution_url = done.headers["location"]

    typed = "A thought <b>& 'quotes'</b> worth keeping."
    refused = form(author, f"{solution_url}/comments", {"body": typed}, solution_url)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert 'id="comment-error"' in refused.text and "a minute; try again in" in refused.text
    assert value_of(refused.text, "comment-body") == typed  # kept, escaped: shown as the text it is
    shown = author.get(solution_url).text
    assert 'id="comment-error"' not in shown and "A thought" not in shown  # the refused post is not saved

    again = {"submission_id": str(second), "title": "Second try", "write_up": "Still **adds**.",
             "tags": "sum, broadcasting"}  # fmt: skip
    limited = form(author, LISTING, again, LISTING)
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    assert 'id="publish-error"' in limited.text and "a minute; try again in" in limited.text
    assert 'value="Second try"' in limited.text and 'value="sum, broadcasting"' in limited.text
    assert (
        value_of(limited.text, "publish-write-up") == "Still **adds**."
        and f'value="{second}" selected' in limited.text
    )
    listing = author.get(LISTING).text
    assert f'href="{solution_url}"' in listing and "Second try" not in listing

    with_settings(solution_posts_per_minute=1000)
    twice = form(author, LISTING, fields, LISTING)  # the first one again: a conflict, on the form
    assert twice.status_code == 409 and 'id="publish-error"' in twice.text
    assert (
        'value="Plain addition"' in twice.text and value_of(twice.text, "publish-write-up") == "It **adds**."
    )
    assert author.get(LISTING).text.count(">Plain addition<") == 1


def test_a_refusal_that_typing_cannot_mend_keeps_its_own_page(learner: Browser) -> None:
    """Someone else's (or no) submission is not found: a 404 page, not the form."""
    fields = {"submission_id": "2147483000", "title": "T", "write_up": "W", "tags": ""}
    missing = form(learner, LISTING, fields, "/problems")
    assert missing.status_code == 404 and 'id="publish-error"' not in missing.text
