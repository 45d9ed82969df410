"""User-written text: bounded, and rendered so that no attempt of the XSS families can run."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from app.kit.errors import InvalidInput
from app.kit.user_text import check_user_text, render_user_markdown
from tests.browser.xss import PAYLOADS


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {name: value or "" for name, value in attrs}))


def elements(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.elements


UNSAFE_ATTRIBUTES = {"style", "srcdoc", "formaction", "action", "name", "xlink:href"}
SAFE_LINKS = ("http://", "https://", "mailto:", "/", "#user-content-")
BANNED_TAGS = {
    "script",
    "style",
    "iframe",
    "object",
    "embed",
    "base",
    "meta",
    "form",
    "input",
    "body",
    "svg",
    "link",
}


@pytest.mark.parametrize(("family", "payload"), PAYLOADS, ids=[family for family, _ in PAYLOADS])
def test_no_attempt_leaves_anything_that_runs(family: str, payload: str) -> None:
    for tag, attrs in elements(render_user_markdown(payload)):
        assert tag not in BANNED_TAGS, (family, tag)
        for name, value in attrs.items():
            assert not name.startswith("on"), (family, tag, name)
            assert name not in {"style", "srcdoc", "formaction", "action", "name", "xlink:href"}, (
                family,
                tag,
                name,
            )
            if name == "id":
                assert value.startswith("user-content-"), (family, value)
            if name == "href":
                assert value.startswith(("http://", "https://", "mailto:", "/", "#user-content-")), (
                    family,
                    value,
                )
                assert not value.startswith("//"), (family, value)
            if name == "src":
                assert value.startswith("/") and not value.startswith("//"), (family, value)


def test_what_a_writer_needs_still_renders() -> None:
    html = render_user_markdown(
        "Use **broadcasting**: $x_i - \\max_j x_j$.\n\n```python\ny = x.exp()\n```\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n[docs](https://example.org/doc) and ![plot](/static/img/a.png)"
    )
    assert "<strong>broadcasting</strong>" in html
    assert "<math" in html
    assert '<span class="n">y</span>' in html
    assert "<table>" in html
    assert 'href="https://example.org/doc"' in html and 'rel="nofollow noopener noreferrer ugc"' in html
    assert '<img src="/static/img/a.png" alt="plot">' in html


def test_images_from_elsewhere_lose_their_source() -> None:
    for text in (
        "![t](https://tracker.invalid/p.png)",
        "![t](//tracker.invalid/p.png)",
        "![t](data:image/png;base64,AA)",
    ):
        assert elements(render_user_markdown(text)) == [("p", {}), ("img", {"alt": "t"})], text


def test_raw_html_is_shown_as_text() -> None:
    assert render_user_markdown("<b>bold?</b>") == "<p>&lt;b&gt;bold?&lt;/b&gt;</p>\n"


@pytest.mark.parametrize("value", ["", "   \n\t"])
def test_an_empty_text_is_refused(value: str) -> None:
    with pytest.raises(InvalidInput, match="Body is empty"):
        check_user_text(value, "Body", max_chars=100)


def test_an_optional_text_may_be_empty() -> None:
    assert check_user_text("", "Note", max_chars=10, required=False) == ""


def test_a_text_over_the_limit_is_refused_with_both_sizes() -> None:
    with pytest.raises(InvalidInput, match="Body is 101 characters long; the limit is 100"):
        check_user_text("x" * 101, "Body", max_chars=100)


def test_line_ends_become_lf_and_a_nul_is_refused() -> None:
    assert check_user_text("a\r\nb\rc", "Body", max_chars=100) == "a\nb\nc"
    with pytest.raises(InvalidInput, match="NUL"):
        check_user_text("a\x00b", "Body", max_chars=100)
