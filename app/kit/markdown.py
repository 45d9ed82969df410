"""Server-side Markdown for statements and learn sections.

markdown-it-py (CommonMark + tables) with dollarmath: ``$...$`` and ``$$...$$`` become MathML
via latex2mathml, so formulas render without JavaScript; fenced code is highlighted by Pygments
(class-based, so the CSS themes colour it); the final HTML goes through nh3 so author HTML
cannot inject scripts, handlers or styles.

Author markup shares the page with the platform's own elements, so every id it sets is
namespaced (``user-content-``, as GitHub does): ``<h2 id="starter-code">`` in a statement becomes
``id="user-content-starter-code"`` and can never shadow (DOM-clobber) an element of the page the
page's scripts look up by id. In-page links follow: ``href="#shapes"`` becomes
``href="#user-content-shapes"``, so a statement's own anchors still work. The section anchors
made from ``##`` titles (:func:`split_sections`) carry the same prefix.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache

import nh3
from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

MATHML_TAGS = {
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "mfrac",
    "msqrt", "mroot", "msub", "msup", "msubsup", "munder", "mover", "munderover", "mtable", "mtr",
    "mtd", "mstyle", "mpadded", "mphantom", "menclose", "merror", "mfenced", "mmultiscripts",
    "mprescripts", "none",
}  # fmt: skip
MATHML_ATTRIBUTES = {
    "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "accent",
    "accentunder", "movablelimits", "columnalign", "rowalign", "columnspacing", "rowspacing",
    "width", "height", "depth", "linethickness", "notation", "displaystyle", "scriptlevel",
    "symmetric", "largeop", "minsize", "maxsize", "open", "close", "separators", "encoding",
}  # fmt: skip

_TAGS = set(nh3.ALLOWED_TAGS) | MATHML_TAGS | {"input"}
_ATTRIBUTES: dict[str, set[str]] = {k: set(v) for k, v in nh3.ALLOWED_ATTRIBUTES.items()}
for _tag in ("span", "code", "pre", "div"):
    _ATTRIBUTES.setdefault(_tag, set()).add("class")
for _tag in MATHML_TAGS:
    _ATTRIBUTES.setdefault(_tag, set()).update(MATHML_ATTRIBUTES)
_ATTRIBUTES["math"].add("xmlns")
for _tag in ("h1", "h2", "h3", "h4"):
    _ATTRIBUTES.setdefault(_tag, set()).add("id")
_ATTRIBUTES["input"] = {"type", "checked", "disabled"}

_formatter = HtmlFormatter(nowrap=True)

ID_PREFIX = "user-content-"


def highlight_fence(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang or "python")
    except ClassNotFound:
        return ""  # markdown-it escapes the code itself
    return highlight(code, lexer, _formatter)


def math_to_mathml(content: str, options: dict[str, object]) -> str:
    display = "block" if options.get("display_mode") else "inline"
    try:
        return str(latex_to_mathml(content.strip(), display=display))
    except Exception:  # latex2mathml raises many kinds on bad input; show the source instead
        return f'<code class="math-error" title="could not render this formula">{html.escape(content)}</code>'


def _make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "highlight": highlight_fence}).enable(
        ["table", "strikethrough"]
    )
    md.use(dollarmath_plugin, renderer=math_to_mathml, allow_digits=False, double_inline=True)
    return md


_md = _make_parser()


def _namespaced_links(tag: str, attribute: str, value: str) -> str:
    """An in-page link (``#name``) points at the namespaced id it now has (``#user-content-name``)."""
    if attribute == "href" and value.startswith("#") and not value.startswith("#" + ID_PREFIX):
        return "#" + ID_PREFIX + value[1:]
    return value


def sanitize(raw_html: str) -> str:
    return nh3.clean(
        raw_html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        link_rel="noopener noreferrer",
        id_prefix=ID_PREFIX,
        attribute_filter=_namespaced_links,
    )


@lru_cache(maxsize=512)
def render_markdown(source: str) -> str:
    """Markdown to safe HTML (cached: statements change only with a new problem version)."""
    return sanitize(_md.render(source))


@dataclass(frozen=True)
class Section:
    title: str
    html: str
    anchor: str


def _top_level_blocks(source: str) -> list[tuple[str, str, int, int]]:
    """(type, tag, first line, end line) of each top-level block, in order."""
    blocks: list[tuple[str, str, int, int]] = []
    for token in _md.parse(source):
        if token.level == 0 and token.map is not None and not token.type.endswith("_close"):
            blocks.append((token.type, token.tag, token.map[0], token.map[1]))
    return blocks


def _slugify(title: str) -> str:
    out = "".join(c.lower() if c.isalnum() else "-" for c in title)
    return "-".join(part for part in out.split("-") if part) or "section"


def split_sections(source: str, first_title: str = "Problem Statement") -> list[Section]:
    """Split at top-level ``##`` headings into titled sections (Example, Constraints, ...).

    Text before the first ``##`` becomes ``first_title``; a leading ``# Title`` heading (which
    only repeats the problem's title shown above it) is dropped.
    """
    lines = source.splitlines(keepends=True)
    blocks = _top_level_blocks(source)
    skip_to = 0
    if blocks and blocks[0][0] == "heading_open" and blocks[0][1] == "h1":
        skip_to = blocks[0][3]
    cuts: list[tuple[int, str]] = []
    for kind, tag, start, _end in blocks:
        if kind == "heading_open" and tag == "h2":
            title = lines[start].strip().lstrip("#").strip() or first_title
            cuts.append((start, title))
    sections: list[tuple[str, str]] = []
    first_end = cuts[0][0] if cuts else len(lines)
    intro = "".join(lines[skip_to:first_end])
    if intro.strip():
        sections.append((first_title, intro))
    for i, (start, title) in enumerate(cuts):
        end = cuts[i + 1][0] if i + 1 < len(cuts) else len(lines)
        body = "".join(lines[start + 1 : end])
        if body.strip():
            sections.append((title, body))
    return [
        Section(title=t, html=render_markdown(body), anchor=ID_PREFIX + _slugify(t)) for t, body in sections
    ]


def split_first_section(source: str) -> tuple[str, str]:
    """``source`` cut before its second top-level ``##`` heading: (the first section, the rest).

    A lesson's first section is background; the later ones (approach, steps, pitfalls) give the
    solution away, so the Learn tab folds them until an attempt. Headings inside code are not cuts.
    """
    lines = source.splitlines(keepends=True)
    starts = [
        start
        for kind, tag, start, _end in _top_level_blocks(source)
        if kind == "heading_open" and tag == "h2"
    ]
    if len(starts) < 2:
        return source, ""
    return "".join(lines[: starts[1]]), "".join(lines[starts[1] :])


def preview_markdown(source: str, max_paragraphs: int = 2) -> tuple[str, bool]:
    """The first section (or first paragraphs) of ``source``, and whether anything was cut.

    Used for locked premium content: only the returned text is ever rendered and sent.
    """
    lines = source.splitlines(keepends=True)
    taken_end = 0
    paragraphs = 0
    seen_content = False
    for kind, _tag, _start, end in _top_level_blocks(source):
        if kind == "heading_open" and seen_content:
            break
        if kind == "paragraph_open":
            paragraphs += 1
        if kind != "heading_open":
            seen_content = True
        taken_end = end
        if paragraphs >= max_paragraphs:
            break
    preview = "".join(lines[:taken_end]).rstrip() + "\n"
    truncated = bool("".join(lines[taken_end:]).strip())
    return preview, truncated


def highlight_code(code: str, lang: str = "python") -> str:
    """Highlighted, escaped HTML for a learner's code (Pygments escapes every token)."""
    try:
        lexer = get_lexer_by_name(lang)
    except ClassNotFound:
        return html.escape(code)
    return highlight(code, lexer, _formatter)


_messages = MarkdownIt("zero", {"html": False}).enable(["backticks"])


@lru_cache(maxsize=2048)
def render_message(text: str) -> str:
    """A judge's message as safe inline HTML: only its `code` spans become ``<code>`` (no links,
    emphasis or HTML: the text can hold what a learner's program printed), then nh3 as for
    statements; line breaks stay as they are, for a ``white-space: pre-wrap`` box."""
    return sanitize(_messages.renderInline(text))
