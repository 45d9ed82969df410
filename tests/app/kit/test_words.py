"""Count phrases come from one helper, with the same table for the pages and the CLI (Python,
``app/kit/words.py``) and the page scripts (``frontend/src/shared/words.js``, run here with node)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from app.kit.words import count, passed_phrase

ROOT = Path(__file__).resolve().parents[3]
COUNTS = [(0, "case", None, "0 cases"), (1, "case", None, "1 case"), (2, "case", None, "2 cases"),
          (1, "reported submission", None, "1 reported submission"),
          (3, "match", "matches", "3 matches")]  # fmt: skip
PASSED = [(1, 1, "The 1 case passed"), (3, 3, "All 3 cases passed"), (0, 1, "0 of 1 case passed"),
          (2, 3, "2 of 3 cases passed"), (0, 0, "All 0 cases passed")]  # fmt: skip


@pytest.mark.parametrize(("n", "noun", "plural", "words"), COUNTS)
def test_count(n: int, noun: str, plural: str | None, words: str) -> None:
    assert count(n, noun, plural) == words


@pytest.mark.parametrize(("passed", "total", "words"), PASSED)
def test_passed_phrase(passed: int, total: int, words: str) -> None:
    assert passed_phrase(passed, total) == words


def test_the_page_scripts_say_the_same() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (make setup installs it)")
    module = (ROOT / "frontend/src/shared/words.js").as_uri()
    script = (
        f"import {{ count, passedPhrase }} from {json.dumps(module)};"
        f"const counts = {json.dumps([[n, noun, plural] for n, noun, plural, _ in COUNTS])};"
        f"const passed = {json.dumps([[p, t] for p, t, _ in PASSED])};"
        "console.log(JSON.stringify([counts.map(([n, w, p]) => count(n, w, p || undefined)),"
        " passed.map(([p, t]) => passedPhrase(p, t))]));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    said_counts, said_passed = json.loads(done.stdout)
    assert said_counts == [words for *_, words in COUNTS]
    assert said_passed == [words for *_, words in PASSED]
