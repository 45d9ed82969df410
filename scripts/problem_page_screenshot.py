"""The README's screenshot of a problem page (docs/img/problem-page.png), taken again on this code.

    .venv/bin/python scripts/problem_page_screenshot.py [--out docs/img/problem-page.png]
        [--slug boolean-compaction] [--mutant integer_mask_as_index.py] [--mode run] [--theme light]

Starts the browser tests' server (``tests/browser/conftest.py``: a fresh SQLite database with both
banks, ``python -m app`` on 127.0.0.1), signs a new learner in, puts a known-wrong solution of the
bank (one of the problem's ``mutants/``) in the editor, runs it and, once the verdict is shown under
Run/Submit, captures the window as a learner sees it (1400×1080) with Debian's Chromium through
Playwright (never a downloaded browser). What the page does is tested in ``tests/browser``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, PASSWORD, running_server  # noqa: E402
from tests.browser.editor import VERDICT_TIMEOUT_MS, replace_code  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "problem-page.png")
    parser.add_argument("--slug", default="boolean-compaction")
    parser.add_argument(
        "--mutant", default="integer_mask_as_index.py", help="a file of the problem's mutants/"
    )
    parser.add_argument("--mode", choices=("run", "submit"), default="run")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1080)
    args = parser.parse_args()
    code = (ROOT / "problems" / args.slug / "mutants" / args.mutant).read_text()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, running_server(Path(folder)) as server:
        learner = server.new_account()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            context = browser.new_context(
                base_url=server.url,
                viewport={"width": args.width, "height": args.height},
                color_scheme=args.theme,
            )
            page = context.new_page()
            page.goto(f"/login?next=/problems/{args.slug}")
            page.get_by_label("Email").fill(learner)
            page.get_by_label("Password").fill(PASSWORD)
            page.locator("main").get_by_role("button", name="Log in").click()
            page.wait_for_url(f"**/problems/{args.slug}")
            page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{args.theme}'; }}")
            replace_code(page, code)
            page.locator(f"#{args.mode}-btn").click()
            summary = page.locator("#results-summary.verdict")
            expect(summary).to_be_visible(timeout=VERDICT_TIMEOUT_MS)
            page.locator("#results-summary").blur()  # no focus ring in the picture
            page.screenshot(path=str(args.out))
            print(f"{args.out}: {summary.inner_text()}")
            browser.close()


if __name__ == "__main__":
    main()
