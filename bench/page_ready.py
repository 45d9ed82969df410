"""``python -m bench.page_ready`` (``make bench``): how soon the problem page is ready, in Chromium.

A throw-away SQLite site with one free seed problem, the app on a real uvicorn server on 127.0.0.1,
and Debian's Chromium (headless, driven by Playwright). **Ready** is the later of the page's
DOMContentLoaded (its scripts have run: tabs, drafts, Run/Submit wired) and the moment the
CodeMirror editor is in the page, in milliseconds from the start of navigation. Measured for a
first visit (a fresh browser context: empty cache) and for a return visit (the same context
again: what the cache headers allow the browser to keep).

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


def ready_ms(page: Page, url: str) -> float:
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function("() => window.__ready.dom !== undefined && window.__ready.editor !== undefined")
    marks: dict[str, float] = page.evaluate("() => window.__ready")
    return max(marks["dom"], marks["editor"])


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
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for i in range(3 + args.samples):  # 3 warm-ups: the server's first renders, Chromium's caches
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                context.add_init_script(WATCH)
                page = context.new_page()
                cold = ready_ms(page, url)
                warm = ready_ms(page, url)
                context.close()
                if i >= 3:
                    first.append(cold)
                    again.append(warm)
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        site.db.dispose()

    for name, values in (("first visit", first), ("return visit", again)):
        print(f"problem page ready, {name}: p50 {statistics.median(values):.0f} ms, "
              f"p95 {pct(values, 95):.0f} ms, min {min(values):.0f} ms ({len(values)} loads)")  # fmt: skip
    p50 = statistics.median(first)
    ok = p50 <= TARGET_FIRST_VISIT_P50_MS
    print(f"[{'ok' if ok else 'FAIL'}] first-visit p50 ≤ {TARGET_FIRST_VISIT_P50_MS:g} ms ({p50:.0f} ms)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
