"""``editorial.md`` in the bank format and the authoring form: optional, kept through a folder's
read/write and the form's round trip, and nothing else new is accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.authoring.forms import EditorForm
from runner.format.problem import ProblemFormatError, build_problem, load_problem_dir, write_problem_dir
from tests.app.conftest import BANK


def test_a_folder_with_editorial_md_round_trips(tmp_path: Path) -> None:
    plain = load_problem_dir(BANK / "add-tensors")
    assert plain.editorial == "" and "editorial.md" not in plain.files()
    files = plain.files() | {"editorial.md": "## Approaches\n\n`a + b`.\n"}
    with_editorial = build_problem("add-tensors", files)
    assert with_editorial.editorial == "## Approaches\n\n`a + b`.\n"
    write_problem_dir(with_editorial, tmp_path / "add-tensors")
    assert load_problem_dir(tmp_path / "add-tensors").editorial == with_editorial.editorial
    with pytest.raises(ProblemFormatError, match="unexpected file"):
        build_problem("add-tensors", files | {"editorial.txt": "x"})


def test_the_authoring_form_keeps_the_editorial() -> None:
    files = load_problem_dir(BANK / "add-tensors").files()
    form = EditorForm.from_files("add-tensors", files | {"editorial.md": "Pitfalls: none.\n"})
    assert form.editorial == "Pitfalls: none.\n" and form.files()["editorial.md"] == "Pitfalls: none.\n"
    form.editorial = "   "
    assert "editorial.md" not in form.files()  # blank: no editorial
