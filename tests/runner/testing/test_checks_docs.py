"""docs/authoring.md's "Checking how" section shows the example problems' files and messages as they are."""

from __future__ import annotations

import re
from pathlib import Path

from tests.runner.testing.test_checks_integrity import DTYPE_MESSAGE, IN_PLACE_MESSAGE
from tests.runner.testing.test_checks_optim import ALIAS_MESSAGE

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "authoring.md"
SECTION = "## Checking how: gradients, inputs, random families"
MARK = re.compile(r"<!-- (example|excerpt): ([\w./-]+) -->\n```python\n(.*?)^```$", re.S | re.M)


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start + len(SECTION))]


def test_the_section_comes_before_the_last_section() -> None:
    headings = re.findall(
        r"(?m)^## (.+)$", DOC.read_text(encoding="utf-8").split("<!-- file: mutants/no_hooks.py")[1]
    )
    assert headings[-3:] == [
        SECTION.removeprefix("## "),
        "Checking how: operations and vectorised work",
        "Changing a published problem",
    ]


def test_every_example_is_the_file_it_names() -> None:
    marks = MARK.findall(section())
    assert {path for _, path, _ in marks} >= {
        f"tests/runner/fixtures/checks/{name}/tests.py"
        for name in ("swish-backward", "center-rows", "column-view", "stable-softmax")
    }
    for kind, path, body in marks:
        text = (REPO / path).read_text(encoding="utf-8")
        assert (body == text) if kind == "example" else (body in text), (
            f"docs/authoring.md shows another {path}"
        )


def test_the_quoted_messages_are_the_judges() -> None:
    prose = " ".join(section().split())
    for message in (IN_PLACE_MESSAGE, DTYPE_MESSAGE, ALIAS_MESSAGE):
        assert message in prose, message
