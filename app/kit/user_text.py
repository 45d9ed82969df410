"""Text that users write for each other (solutions' write-ups, discussion posts, editorials).

One home for the rules every user-written text obeys, on every route (pages, API, CLI):

* **Bounded**: :func:`check_user_text` refuses an empty or over-long text with a 422 naming the field
  and the limit, before anything is stored.
* **Safe to show**: :func:`render_user_markdown` is the statements' Markdown (CommonMark, tables,
  ``$math$`` as MathML, highlighted code) with stricter rules, because the writer is anybody:

  - raw HTML is not markup: ``<script>`` or ``<img onerror=…>`` shows as the text it is;
  - links keep only ``http``, ``https`` and ``mailto`` targets or paths on this site (no ``javascript:``,
    ``data:``, ``vbscript:`` however they are spelt), and carry ``rel="nofollow noopener noreferrer ugc"``;
  - images load only from this site (a path starting with one ``/``): any other ``src`` is removed, so
    a post can neither track its readers nor show what the site did not serve;
  - ids are namespaced like statements' (``user-content-``), so a post cannot shadow the page's elements;
  - the result goes through nh3 (ammonia) with the same allow-list as statements, no ``style``.

The output is HTML to put in a page as is (``|safe``) and in the API as ``body_html``.
"""

from __future__ import annotations

from functools import lru_cache

import nh3
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from app.kit.errors import InvalidInput
from app.kit.markdown import ID_PREFIX, MATHML_ATTRIBUTES, MATHML_TAGS, highlight_fence, math_to_mathml
from runner.format.problem import MAX_FILE_BYTES

LINK_SCHEMES = frozenset({"http", "https", "mailto"})
USER_LINK_REL = "nofollow noopener noreferrer ugc"

_TAGS = set(nh3.ALLOWED_TAGS) | MATHML_TAGS
_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "span": {"class"},
    "code": {"class"},
    "pre": {"class"},
    "div": {"class"},
    "td": {"align"},
    "th": {"align"},
    "ol": {"start"},
    **{tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS},
}
_ATTRIBUTES["math"] = set(MATHML_ATTRIBUTES) | {"xmlns"}


def _site_path(value: str) -> bool:
    """A path on this site: one leading ``/``, never ``//host`` or ``/\\host`` (a browser reads a host)."""
    return value.startswith("/") and not value.startswith(("//", "/\\")) and "\\" not in value


def _filter(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute == "src":
        return value if _site_path(value) else None
    if attribute == "href" and value.startswith("#") and not value.startswith("#" + ID_PREFIX):
        return "#" + ID_PREFIX + value[1:]
    return value


def _make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "highlight": highlight_fence}).enable(
        ["table", "strikethrough"]
    )
    md.use(dollarmath_plugin, renderer=math_to_mathml, allow_digits=False, double_inline=True)
    return md


_md = _make_parser()


def sanitize_user_html(raw_html: str) -> str:
    """HTML made from a user's text, cleaned with the user-text allow-list (see the module's rules)."""
    return nh3.clean(
        raw_html,
        tags=_TAGS,
        clean_content_tags={"script", "style"},
        attributes=_ATTRIBUTES,
        attribute_filter=_filter,
        link_rel=USER_LINK_REL,
        url_schemes=set(LINK_SCHEMES),
        id_prefix=ID_PREFIX,
        strip_comments=True,
    )


@lru_cache(maxsize=4096)
def render_user_markdown(source: str) -> str:
    """A user's Markdown as safe HTML (cached by text: a post's text changes only with an edit)."""
    return sanitize_user_html(_md.render(source))


def check_user_text(value: str, field: str, *, max_chars: int, required: bool = True) -> str:
    """``value`` with its line ends made LF, or 422 ``invalid_input`` when empty (if required),
    over ``max_chars`` characters, or holding a NUL (which PostgreSQL cannot store)."""
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    if required and not text.strip():
        raise InvalidInput(f"{field} is empty: write something first.")
    if len(text) > max_chars:
        raise InvalidInput(f"{field} is {len(text):,} characters long; the limit is {max_chars:,}.")
    if "\x00" in text:
        raise InvalidInput(f"{field} holds a NUL character (\\0); remove it.")
    return text


def editorial_refusal(source: str) -> str | None:
    """Why a post holding a problem's editorial (``editorial.md``) would be refused by
    :func:`check_user_text` — a NUL —, or None. The editorial page shows it as user text, so it
    obeys the same rules: saving, validating and importing a problem ask this (optional, and the
    problem format bounds its size)."""
    try:
        check_user_text(source, "The editorial", max_chars=MAX_FILE_BYTES, required=False)
    except InvalidInput as exc:
        return exc.detail
    return None
