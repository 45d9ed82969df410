from __future__ import annotations

from app.kit.markdown import (
    highlight_code,
    preview_markdown,
    render_markdown,
    split_first_section,
    split_sections,
)


def test_inline_and_block_math_become_mathml() -> None:
    html = render_markdown("Loss $L = \\frac{1}{n}$.\n\n$$\nx^2\n$$\n")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert "<mfrac>" in html and '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in html
    assert "$" not in html


def test_prices_are_not_math() -> None:
    assert "<math" not in render_markdown("It costs $5 and $6.")


def test_author_html_is_sanitised() -> None:
    html = render_markdown(
        '<script>alert(1)</script><img src="x" onerror="alert(2)"><a href="javascript:alert(3)">a</a>'
        "<iframe src='x'></iframe>\n\n$\\text{<script>alert(4)</script>}$"
    )
    assert (
        "<script" not in html
        and "onerror" not in html
        and "javascript:" not in html
        and "<iframe" not in html
    )


def test_code_blocks_are_highlighted_and_escaped() -> None:
    html = render_markdown("```python\nif x < 1:\n    pass\n```\n")
    assert '<span class="k">if</span>' in html and "&lt;" in html
    assert '<span class="k">def</span>' in highlight_code("def f(): pass")
    assert "&lt;script&gt;" in highlight_code("<script>", "no-such-language")


def test_sections_split_at_h2_and_ignore_headings_in_code() -> None:
    sections = split_sections(
        "# Title\n\nIntro\n\n## Example\n\n```\n## not a heading\n```\n\n## Constraints\n\n- n > 0\n"
    )
    assert [s.title for s in sections] == ["Problem Statement", "Example", "Constraints"]
    assert "not a heading" in sections[1].html and "Title" not in sections[0].html


def test_preview_keeps_the_first_section_only() -> None:
    preview, cut = preview_markdown("## One\n\nfirst\n\n## Two\n\nsecret\n")
    assert "first" in preview and "secret" not in preview and cut
    preview, cut = preview_markdown("p1\n\np2\n\np3 secret\n")
    assert "p2" in preview and "secret" not in preview and cut
    assert preview_markdown("only\n") == ("only\n", False)


def test_split_first_section_cuts_before_the_second_heading_never_inside_code() -> None:
    source = "## Background\n\nIdeas.\n\n```python\n## not a heading\nx = 1\n```\n\n## Approach\n\nSteps.\n"
    first, rest = split_first_section(source)
    assert first.startswith("## Background") and "## not a heading" in first and "Steps" not in first
    assert rest.startswith("## Approach") and first + rest == source
    assert split_first_section("## Only\n\nOne section.\n") == ("## Only\n\nOne section.\n", "")
