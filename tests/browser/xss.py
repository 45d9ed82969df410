"""Stored-XSS attempts and the page-level trap that proves none of them ran.

The attempts are our own, one or more per family of the OWASP XSS filter-evasion cheat sheet's
classes: raw tags, event handlers, URL schemes (spelt every way a browser still accepts), broken
and nested markup, SVG and MathML, attribute breaking, Markdown's own link and image syntax, HTML
entities and encodings, CSS, DOM clobbering by id or name, template syntax, and Unicode tricks.
Every payload calls ``alert``/``confirm``/``prompt`` or ``__xss(...)`` when it runs.

:func:`install_trap` runs before any page script (``add_init_script``): it replaces those functions
with recorders and listens for ``securitypolicyviolation`` (an inline script or handler the CSP
blocked still means the markup reached the DOM). :func:`assert_no_script_ran` fails with what ran.
"""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page

# (family, text a user writes). Each text is also a valid post body (non-empty, small).
PAYLOADS: list[tuple[str, str]] = [
    ("raw script tag", "<script>alert('raw')</script>"),
    ("script split by markdown", "<scr<script>ipt>alert('split')</script>"),
    ("img onerror", "<img src=x onerror=alert('img')>"),
    ("svg onload", "<svg onload=alert('svg')></svg>"),
    ("svg script", "<svg><script>alert('svgscript')</script></svg>"),
    ("mathml href", "<math><mi xlink:href=\"javascript:alert('mathml')\">x</mi></math>"),
    ("body onload", "<body onload=alert('body')>"),
    ("iframe srcdoc", "<iframe srcdoc=\"<script>parent.alert('srcdoc')</script>\"></iframe>"),
    ("object data", "<object data=\"javascript:alert('object')\"></object>"),
    ("details ontoggle", "<details open ontoggle=alert('toggle')>x</details>"),
    ("autofocus onfocus", "<input autofocus onfocus=alert('focus')>"),
    ("markdown javascript link", "[click me](javascript:alert('mdlink'))"),
    ("markdown link, entity-encoded scheme", "[click](javascript&#58;alert('entity'))"),
    ("markdown link, mixed case + tab", "[click](JaVa\tScRiPt:alert('tab'))"),
    ("markdown link, data url", "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgnZGF0YScpPC9zY3JpcHQ+)"),
    ("markdown link, vbscript", "[click](vbscript:msgbox('vb'))"),
    ("markdown autolink scheme", "<javascript:alert('autolink')>"),
    ("markdown image onerror via title", '![x](/nope.png "\\" onerror=\\"alert(\'title\')")'),
    ("markdown image from another host", "![tracker](https://tracker.invalid/pixel.png)"),
    ("markdown image protocol-relative", "![tracker](//tracker.invalid/pixel.png)"),
    ("reference link to javascript", "[a][r]\n\n[r]: javascript:alert('ref')"),
    ("html link in markdown", "<a href=\"javascript:alert('html-a')\">x</a>"),
    ("attribute breakout in code fence info", "```python\" onmouseover=\"alert('fence')\nx = 1\n```"),
    ("style expression", "<div style=\"background:url(javascript:alert('css'))\">x</div>"),
    ("style tag", "<style>@import 'javascript:alert(1)';</style>"),
    ("meta refresh", '<meta http-equiv="refresh" content="0;url=javascript:alert(\'meta\')">'),
    ("base href", "<base href=\"javascript:alert('base')//\">"),
    ("form action", "<form action=\"javascript:alert('form')\"><button>go</button></form>"),
    ("dom clobbering by id", '<a id="verdict-announce">x</a><form name="getElementById"></form>'),
    ("heading id clobbering", "# csrf-token\n\n## verdict-announce"),
    ("template syntax", "{{ 7*7 }} {% raw %} ${alert('tpl')} <%= 7*7 %>"),
    ("math with html", "$<img src=x onerror=alert('math')>$"),
    ("display math with script", "$$\\text{<script>alert('dmath')</script>}$$"),
    ("unicode escapes", "<img src=x on\u0065rror=alert('uni')>"),
    ("null byte in tag", "<scr\u0000ipt>alert('nul')</script>"),
    ("comment breaking", "<!--<img src=\"--><img src=x onerror=alert('comment')//\">"),
    ("noscript mutation", "<noscript><p title=\"</noscript><img src=x onerror=alert('mxss')>\"></noscript>"),
    ("trap function directly", "<img src=x onerror=__xss('direct')>"),
]

_TRAP = """
(() => {
  const hits = [];
  Object.defineProperty(window, '__xssHits', { value: hits, writable: false });
  const record = (how) => function (...args) { hits.push(how + ':' + args.map(String).join(',')); };
  window.alert = record('alert');
  window.confirm = record('confirm');
  window.prompt = record('prompt');
  window.__xss = record('__xss');
  document.addEventListener('securitypolicyviolation', (e) => {
    hits.push('csp:' + e.violatedDirective + ':' + (e.sample || e.blockedURI));
  });
})();
"""


def install_trap(target: BrowserContext | Page) -> None:
    """Record every alert/confirm/prompt/__xss call and CSP violation on every page from now on."""
    target.add_init_script(_TRAP)


def assert_no_script_ran(page: Page) -> None:
    hits = page.evaluate("window.__xssHits ? Array.from(window.__xssHits) : null")
    assert hits is not None, "the XSS trap is not installed on this page"
    assert hits == [], f"a user's text ran script or tripped the CSP: {hits}"


def hover_and_click_every_link(page: Page, selector: str) -> None:
    """Give event-handler and link payloads their chance: hover every element, click every link."""
    for element in page.locator(f"{selector} *").all():
        if element.is_visible():
            element.hover(timeout=2000)
    for link in page.locator(f"{selector} a[href]").all():
        href = link.get_attribute("href") or ""
        if link.is_visible() and not href.startswith(("http://", "https://", "mailto:")):
            link.click(timeout=2000, no_wait_after=True)
