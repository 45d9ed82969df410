"""``python -m bench.page_ready`` (``make bench``): how soon the problem page is ready, in Chromium.

A throw-away SQLite site with one free seed problem, the app on a real uvicorn server on 127.0.0.1,
and Debian's Chromium (headless, driven by Playwright). **Ready** is the page's DOMContentLoaded,
in milliseconds from the start of navigation: the statement is laid out, the page's script has run
(tabs, drafts, Run/Submit wired) and the code can be edited — in the page's own textarea, which the
CodeMirror bundle (loaded ``async``) upgrades when it has run; that moment is printed too
(*CodeMirror up*). Measured for a first visit (a fresh browser context: empty cache) and for a
return visit (the same context again: what the cache headers let the browser keep).

Target (issue #40, part 8): first-visit p50 ≤ 250 ms (well under half of the ~535 ms before
the static files were compressed and cached). Exit status 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from app.kit.runner import default_runner
from app.main import create_app
from bench.web import DEFAULT_PROBLEM, free_port, pct, prepare_site, start_server
from runner.format.problem import load_problem_dir

TARGET_FIRST_VISIT_P50_MS = 250.0
CHROMIUM = os.environ.get("TORCHDRILL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip

# Records, from the start of navigation, when the DOM was loaded and when the editor appeared.
WATCH = """
window.__ready = {};
document.addEventListener('DOMContentLoaded', () => { window.__ready.dom = performance.now(); });
new MutationObserver((_, observer) => {
  if (!document.querySelector('.cm-content')) return;
  window.__ready.editor = performance.now();
  observer.disconnect();
}).observe(document, {childList: true, subtree: true});
"""


def ready_ms(page: Page, url: str) -> tuple[float, float]:
    """(ready, CodeMirror up) for one load of ``url``."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function("() => window.__ready.dom !== undefined && window.__ready.editor !== undefined")
    marks: dict[str, float] = page.evaluate("() => window.__ready")
    return marks["dom"], max(marks["dom"], marks["editor"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.page_ready", description=__doc__.splitlines()[0])
    parser.add_argument("--problem", type=Path, default=DEFAULT_PROBLEM, help="a free problem folder")
    parser.add_argument("--samples", type=int, default=20, help="page loads per measurement")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"error: {CHROMIUM} is missing (make setup installs Debian's chromium)")

    problem = load_problem_dir(args.problem)
    runner = default_runner()
    site = prepare_site(args.problem, problem.slug, 1, runner)
    port = free_port()
    server, thread = start_server(create_app(site.settings, database=site.db, runner=runner), port)
    url = f"http://127.0.0.1:{port}/problems/{problem.slug}"
    first: list[float] = []
    again: list[float] = []
    first_editor: list[float] = []
    again_editor: list[float] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for i in range(3 + args.samples):  # 3 warm-ups: the server's first renders, Chromium's caches
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                context.add_init_script(WATCH)
                page = context.new_page()
                cold, cold_editor = ready_ms(page, url)
                warm, warm_editor = ready_ms(page, url)
                context.close()
                if i >= 3:
                    first.append(cold)
                    again.append(warm)
                    first_editor.append(cold_editor)
                    again_editor.append(warm_editor)
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        site.db.dispose()

    for name, values in (("ready, first visit", first), ("ready, return visit", again),
                         ("CodeMirror up, first visit", first_editor),
                         ("CodeMirror up, return visit", again_editor)):  # fmt: skip
        print(f"problem page {name}: p50 {statistics.median(values):.0f} ms, "
              f"p95 {pct(values, 95):.0f} ms, min {min(values):.0f} ms ({len(values)} loads)")  # fmt: skip
    p50 = statistics.median(first)
    ok = p50 <= TARGET_FIRST_VISIT_P50_MS
    print(f"[{'ok' if ok else 'FAIL'}] first-visit p50 ≤ {TARGET_FIRST_VISIT_P50_MS:g} ms ({p50:.0f} ms)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
