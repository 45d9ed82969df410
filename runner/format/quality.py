"""The bar for problems in the shipped bank (``problems/``), above what any valid problem needs.

Validation (``runner.format.validate``) decides whether a problem *works*: the reference passes, the starter
and the mutants fail, the examples are right. An instructor's problem written in the web editor only
has to work. A problem shipped in the bank must also teach the same way as every other: the full
set of statement and learn sections, at least one hint, a real track, and at least three mutants so
that the strength of its tests is measured. ``torchdrill problems validate`` applies these rules to
folders that belong to a bank with a ``tracks.toml`` (as ``make validate`` does), and
``tests/runner/format/test_bank_quality.py`` applies them to the whole bank without running anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from runner.format.problem import ProblemFiles
from runner.format.tracks import load_tracks
from runner.format.validation_report import Finding

MIN_MUTANTS = 3
MIN_HINTS = 1

# (level, heading) in the order they appear; level 3 headings belong to the level 2 one before them.
STATEMENT_SECTIONS = (
    (2, "Problem Statement"),
    (2, "Background"),
    (2, "Your Task"),
    (2, "Output Format"),
    (2, "Example"),
    (3, "Input"),
    (3, "Output"),
    (3, "Reasoning"),
    (2, "Constraints"),
)
LEARN_SECTIONS = (
    (2, "Background Knowledge"),
    (2, "Algorithm/Approach"),
    (2, "Step-by-Step Strategy"),
    (2, "Common Pitfalls"),
    (2, "Time & Space Complexity"),
)
HEADING_RE = re.compile(r"(?m)^(#{2,3})\s+(.+?)\s*#*\s*$")
FENCE_RE = re.compile(r"(?ms)^```.*?^```")


def headings(markdown: str) -> list[tuple[int, str]]:
    """The ``##`` and ``###`` headings of a Markdown text, outside code blocks."""
    text = FENCE_RE.sub("", markdown)
    return [(len(hashes), title) for hashes, title in HEADING_RE.findall(text)]


def missing_sections(markdown: str, wanted: Sequence[tuple[int, str]]) -> list[str]:
    """The wanted headings that are absent, as they should be written (``## Example``)."""
    present = set(headings(markdown))
    return ["#" * level + " " + title for level, title in wanted if (level, title) not in present]


def bank_titles(folder: Path) -> list[str] | None:
    """The track titles of the bank ``folder`` belongs to, or None when that bank has no tracks.toml."""
    tracks = load_tracks(folder.parent)
    return [t.title for t in tracks] if tracks is not None else None


def bank_findings(problem: ProblemFiles) -> list[Finding]:
    """What keeps a working ``problem`` out of the shipped bank (empty when it meets the bar).

    Its track is checked by validation itself (``validate_problem(..., tracks)``), so not again here.
    """
    findings: list[Finding] = []
    if len(problem.hints) < MIN_HINTS:
        findings.append(
            Finding("problem.toml", "no hints", None, 'add hints = ["...", ...]: 1 to 3, gentlest first')
        )
    if len(problem.mutants) < MIN_MUTANTS:
        findings.append(
            Finding(
                "mutants/",
                f"{len(problem.mutants)} mutant(s); the bank needs at least {MIN_MUTANTS}",
                None,
                "add realistic wrong solutions the hidden cases must reject",
            )
        )
    for file, source, wanted in (
        ("statement.md", problem.statement, STATEMENT_SECTIONS),
        ("learn.md", problem.learn, LEARN_SECTIONS),
    ):
        for heading in missing_sections(source, wanted):
            findings.append(Finding(file, f"missing section '{heading}'", None, f"add a '{heading}' heading"))
    return findings
