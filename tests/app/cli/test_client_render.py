"""The light client's renderers on hostile server text: the notebook's HTML runs nothing the server
sent (an output runs with the learner's rights, next to the token), and the terminal's lines are the
same words as the HTML's."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from torchdrill.jupyter import markdown_html
from torchdrill.render import result_html, result_lines

ATTACKS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "</pre></td></tr></table><svg onload=alert(1)>",
    '" onmouseover="alert(1)',
    '<a href="javascript:alert(1)">x</a>',
]
SAFE_TAGS = {"div", "p", "pre", "b", "table", "thead", "tbody", "tr", "th", "td", "details", "summary",
             "h1", "code"}  # fmt: skip


class Elements(HTMLParser):
    """Every element and attribute a browser would build from the HTML."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: list[tuple[str, str | None]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.extend(attrs)


def assert_inert(html: str) -> None:
    found = Elements(html)
    assert found.tags <= SAFE_TAGS, (found.tags - SAFE_TAGS, html)
    names = {name for name, _ in found.attributes}
    assert names <= {"class", "style", "data-verdict", "open"}, (names, html)


def _view(text: str) -> dict[str, Any]:
    return {
        "id": 7, "mode": "submit", "status": "finished", "verdict": text, "verdict_label": text,
        "passed": 0, "total": 2, "message": text,
        "tests": [
            {"name": text, "public": True, "status": "failed", "message": "", "time_ms": 1.5,
             "expected": text, "actual": text, "traceback": text},
            {"name": "hidden", "public": False, "status": "failed", "message": text, "time_ms": 1.0},
        ],
    }  # fmt: skip


@pytest.mark.parametrize("attack", ATTACKS)
def test_result_html_escapes_everything_the_server_sends(attack: str) -> None:
    html = result_html(_view(attack))
    assert_inert(html)
    assert html.count("&lt;") >= attack.count("<") * 5  # shown, as text, in every place


def test_result_html_says_what_the_terminal_says() -> None:
    view = {
        "id": 3, "mode": "submit", "status": "finished", "verdict": "wrong_answer",
        "verdict_label": "Wrong Answer", "passed": 2, "total": 3, "message": "",
        "tests": [
            {"name": "example", "public": True, "status": "failed", "message": "", "time_ms": 0.4,
             "expected": "tensor([4., 6.])", "actual": "tensor([-2., -2.])"},
            {"name": "hidden_1", "public": False, "status": "failed", "message": "values differ at [0]",
             "time_ms": 0.2},
        ],
    }  # fmt: skip
    lines = result_lines(view)
    html = result_html(view)
    assert lines[0] == "#3 submit: WRONG ANSWER  2/3 passed" and lines[0] in html
    assert "expected tensor([4., 6.]), got tensor([-2., -2.])" in lines[2]
    assert "<td>expected tensor([4., 6.]), got tensor([-2., -2.])</td>" in html
    assert "values differ at [0]" in lines[3] and "<td>values differ at [0]</td>" in html


def test_a_failed_cases_input_is_offered_for_torchdrill_run_and_never_a_passed_ones() -> None:
    given = '{\n  "a": {"tensor": [1.0, 2.0], "dtype": "float32"}\n}'
    view = {
        "id": 4, "mode": "run", "status": "finished", "verdict": "wrong_answer", "passed": 1, "total": 3,
        "verdict_label": "Differs from the reference", "message": "",
        "tests": [
            {"name": "example", "public": True, "status": "failed", "message": "Wrong shape.", "time_ms": 1.0,
             "try_input": given},
            {"name": "generated", "public": False, "status": "failed", "message": "Values.", "time_ms": 1.0,
             "failure": {"kind": "values", "title": "Values", "input": given + " "}},  # an older server
            {"name": "ok", "public": True, "status": "passed", "message": "", "time_ms": 1.0,
             "try_input": "never shown"},
        ],
    }  # fmt: skip
    text = "\n".join(result_lines(view))
    assert text.count("torchdrill run --input") == 2 and given in text and "never shown" not in text
    html = result_html(view)
    assert html.count("a failing input") == 2 and "never shown" not in html


@pytest.mark.parametrize("attack", ATTACKS)
def test_statements_render_markdown_without_raw_html_or_script_links(attack: str) -> None:
    html = markdown_html(f"# Title\n\n{attack}\n\n[click](javascript:alert(1)) `a < b`\n")
    assert "<h1>Title</h1>" in html and "<code>a &lt; b</code>" in html
    assert_inert(html.replace("<p>", "").replace("</p>", ""))
    assert 'href="javascript' not in html and "[click](javascript:alert(1))" in html  # left as text
