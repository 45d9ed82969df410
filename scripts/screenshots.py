"""Screenshots of every paged list, first page and the next, at a desktop and a phone width.

    .venv/bin/python scripts/screenshots.py [--out /tmp/shots]

Starts the browser tests' server (a fresh SQLite database, ``tests/browser/conftest.py``), seeds
rows enough for a second page of each list (``tests/browser/lists.py``), and drives Debian's
Chromium through Playwright (never a downloaded browser). The PNGs are for a person to look at;
the behaviour itself is tested in ``tests/browser/test_paged_lists.py``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, PASSWORD, running_server  # noqa: E402
from tests.browser.lists import SLUG, seed_lists  # noqa: E402

WIDTHS = {"wide": 1280, "phone": 390}


def login(page: Page, email: str) -> None:
    page.goto("/login?next=/problems")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("main").get_by_role("button", name="Log in").click()
    page.wait_for_url("**/problems")


def shoot(page: Page, out: Path, name: str, selector: str | None = None, full_page: bool = True) -> None:
    path = out / f"{name}.png"
    if selector:
        page.locator(selector).screenshot(path=str(path))
    else:
        page.screenshot(path=str(path), full_page=full_page)
    print(path)


def history(page: Page, out: Path, width: str) -> None:
    page.goto(f"/problems/{SLUG}")
    switch = page.get_by_role("button", name="Code", exact=True)
    if switch.is_visible():
        switch.click()
    older = page.get_by_role("button", name="Older submissions")
    older.wait_for()
    shoot(page, out, f"history-{width}-1", "#history")
    older.click()
    page.locator("#history-list li[data-id]").nth(20).wait_for()
    shoot(page, out, f"history-{width}-2", "#history")
    older_pages = re.compile(r"/submissions\?.*before=")
    page.route(older_pages, lambda route: route.abort())
    older.click()
    page.locator("#history-status.error").wait_for()
    shoot(page, out, f"history-{width}-failed", "#history")
    page.unroute(older_pages)
    older.click()
    page.locator("#history-list li[data-id]").nth(59).wait_for()
    shoot(page, out, f"history-{width}-last", "#history")


def page_ends(page: Page, out: Path, name: str) -> None:
    """The top and the bottom of a long page, as a person sees them (one screen each)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    shoot(page, out, f"{name}-top", full_page=False)
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    shoot(page, out, f"{name}-end", full_page=False)


def follow(page: Page, out: Path, name: str, link: str, selector: str | None = None) -> None:
    if selector:
        shoot(page, out, f"{name}-1", selector)
    else:
        page_ends(page, out, f"{name}-1")
    page.locator(link).click()
    page.wait_for_load_state()
    if selector:
        shoot(page, out, f"{name}-2", selector)
    else:
        page_ends(page, out, f"{name}-2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/shots"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, running_server(Path(folder)) as server:
        seeded = seed_lists(server.database, server.accounts.instructor)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for width, px in WIDTHS.items():
                for who in (seeded.learner, server.accounts.instructor, seeded.admin):
                    context = browser.new_context(base_url=server.url, viewport={"width": px, "height": 900})
                    page = context.new_page()
                    login(page, who)
                    if who == seeded.learner:
                        history(page, args.out, width)
                        page.goto("/account#tokens")
                        follow(page, args.out, f"tokens-{width}", "#tokens-older", "#tokens")
                    elif who == seeded.admin:
                        page.goto("/admin")
                        follow(page, args.out, f"admin-{width}", "#users-next")
                    else:
                        page.goto(f"/courses/{seeded.course_id}/gradebook")
                        follow(page, args.out, f"gradebook-{width}", "#gradebook-next")
                        page.goto(f"/courses/{seeded.course_id}/students/{seeded.learner_id}")
                        page_ends(page, args.out, f"drill-down-{width}-1")
                        older = page.locator("#attempts-older")
                        if older.count():
                            older.click()
                            page.wait_for_load_state()
                            page_ends(page, args.out, f"drill-down-{width}-2")
                    context.close()
            browser.close()


if __name__ == "__main__":
    main()
