"""Loading a past submission's code, and the line diff of two submissions (own ones only)."""

from __future__ import annotations

from app.submissions.code_diff import line_diff


def test_line_diff_marks_removed_and_added_lines_with_numbers() -> None:
    diff = line_diff("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [(d.kind, d.old_no, d.new_no, d.text) for d in diff.lines] == [
        ("same", 1, 1, "a"),
        ("removed", 2, None, "b"),
        ("added", None, 2, "B"),
        ("same", 3, 3, "c"),
        ("added", None, 4, "d"),
    ]
    assert (diff.removed, diff.added) == (1, 2)


def test_compare_page_and_code_are_for_the_owner_only(learner, new_browser) -> None:
    first = learner.submit("add-tensors", "def add(a, b):\n    return a - b\n", "run").json()["id"]
    second = learner.submit("add-tensors", "def add(a, b):\n    return a + b\n", "run").json()["id"]
    learner.verdict(first)
    learner.verdict(second)
    assert learner.get(f"/api/submissions/{first}/code").json()["code"].endswith("return a - b\n")
    page = learner.get(f"/submissions/{second}/compare/{first}")
    assert page.status_code == 200
    assert f'Compare <a href="/submissions/{first}">#{first}</a>' in page.text  # older first
    assert '<tr class="diff-removed">' in page.text and "return a - b" in page.text
    assert '<tr class="diff-added">' in page.text and "1 line removed, 1 added" in page.text

    other = new_browser()
    assert other.signup().status_code == 303
    assert other.get(f"/api/submissions/{first}/code").status_code == 404
    assert other.get(f"/submissions/{first}/compare/{second}").status_code == 404
