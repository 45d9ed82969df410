"""The bank's quality gate and track list: each rule refuses what it should, with a clear message.

``test_bank.py`` applies the gate to every shipped problem; this file shows that the gate can fail.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runner.cli import app as runner_cli
from runner.format.problem import ProblemFormatError, load_problem_dir
from runner.format.quality import bank_findings, bank_titles, missing_sections
from runner.format.tracks import load_tracks, parse_tracks, unknown_category
from tests.runner.conftest import BANK

NINE_TRACKS = [
    ("tensors", "Tensors & Broadcasting"),
    ("indexing", "Indexing, Gather & Scatter"),
    ("autograd", "Autograd"),
    ("modules", "Building nn.Modules"),
    ("losses-optim", "Losses & Optimisers"),
    ("training-data", "Training Loop & Data"),
    ("numerics", "Numerics & Introspection"),
    ("attention", "Attention & Transformers"),
    ("pytorch-advanced", "PyTorch Advanced"),
]
GOOD = load_problem_dir(BANK / "forward-hook-activations")


def test_the_bank_has_the_nine_tracks_in_order() -> None:
    tracks = load_tracks(BANK)
    assert tracks is not None
    assert [(t.slug, t.title) for t in tracks] == NINE_TRACKS
    assert [t.order for t in tracks] == list(range(1, 10))
    assert all(len(t.description) > 80 and "\n" not in t.description for t in tracks)


def test_a_good_problem_meets_the_bar() -> None:
    assert bank_findings(GOOD) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda p: replace(p, hints=()), "problem.toml: no hints"),
        (
            lambda p: replace(p, mutants=dict(list(p.mutants.items())[:2])),
            "mutants/: 2 mutant(s); the bank needs at least 3",
        ),
        (
            lambda p: replace(p, statement=p.statement.replace("### Reasoning", "### Why")),
            "statement.md: missing section '### Reasoning'",
        ),
        (
            lambda p: replace(p, statement=p.statement.replace("## Output Format", "## Output")),
            "statement.md: missing section '## Output Format'",
        ),
        (
            lambda p: replace(p, learn=p.learn.replace("## Common Pitfalls", "## Pitfalls")),
            "learn.md: missing section '## Common Pitfalls'",
        ),
    ],
)
def test_each_rule_refuses_what_it_names(change, expected: str) -> None:  # type: ignore[no-untyped-def]
    findings = [str(f) for f in bank_findings(change(GOOD))]
    assert len(findings) == 1 and findings[0].startswith(expected), findings


def test_a_heading_inside_a_code_block_does_not_count() -> None:
    text = "## Problem Statement\n\n```python\n## Constraints\n```\n"
    assert missing_sections(text, [(2, "Problem Statement"), (2, "Constraints")]) == ["## Constraints"]


def test_an_unknown_category_is_refused_naming_the_tracks() -> None:
    titles = [t for _, t in NINE_TRACKS]
    assert unknown_category("PyTorch Advanced", titles) is None
    message = unknown_category("Pytorch advanced", titles)
    assert message is not None and "'Pytorch advanced' is not a track" in message
    assert "'Attention & Transformers'" in message


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", "one or more [[track]] tables"),
        ('[[track]]\nslug = "a"\ntitle = "A"\norder = 1\ndescription = "d"\n', "slug must be"),
        ('[[track]]\nslug = "ab"\ntitle = "A"\norder = 1\n', "exactly slug, title, order and description"),
        (
            '[[track]]\nslug = "ab"\ntitle = "A"\norder = 1\ndescription = "d"\n'
            '[[track]]\nslug = "cd"\ntitle = "A"\norder = 2\ndescription = "d"\n',
            "duplicate track title: A",
        ),
        ('[[track]]\nslug = "ab"\ntitle = "A"\norder = 0\ndescription = "d"\n', "order must be"),
    ],
)
def test_a_malformed_tracks_file_is_refused(source: str, message: str) -> None:
    with pytest.raises(ProblemFormatError, match=r"tracks\.toml") as caught:
        parse_tracks(source)
    assert message in str(caught.value)


def test_a_lone_folder_has_no_bank_rules(tmp_path: Path) -> None:
    shutil.copytree(BANK / "per-layer-lr", tmp_path / "per-layer-lr")
    assert bank_titles(tmp_path / "per-layer-lr") is None
    assert bank_titles(BANK / "per-layer-lr") == [t for _, t in NINE_TRACKS]


def test_validate_refuses_an_unknown_track_and_a_missing_hint_in_a_bank(tmp_path: Path) -> None:
    """The CLI behind ``make validate`` applies the track and the bank's bar (the real sandbox runs)."""
    bank = tmp_path / "bank"
    bank.mkdir()
    shutil.copy(BANK / "tracks.toml", bank / "tracks.toml")
    folder = bank / "per-layer-lr"
    shutil.copytree(BANK / "per-layer-lr", folder)
    toml = (folder / "problem.toml").read_text()
    start, end = toml.index("hints = ["), toml.index("]\n", toml.index("hints = [")) + 2
    toml = toml[:start] + toml[end:]
    (folder / "problem.toml").write_text(toml.replace('"PyTorch Advanced"', '"Optimisers"'))
    result = CliRunner().invoke(runner_cli, ["validate", str(bank)])
    assert result.exit_code == 1, result.output
    assert "problem.toml: category 'Optimisers' is not a track" in result.output
    assert "problem.toml: no hints" in result.output
