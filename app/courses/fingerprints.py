"""Code similarity by winnowed fingerprints (``copydetect``, the MOSS algorithm), boilerplate removed.

Each solution is tokenised and filtered by copydetect (names become one symbol, comments and
whitespace go), so renaming variables changes nothing; its k-grams are hashed and winnowed into a
set of fingerprints, so moving whole functions around changes only the few k-grams that straddle
a boundary. Fingerprints of the boilerplate — the problem's starter code and the code blocks of
its statement — are dropped from every solution before anything is compared: code that everybody
was given is no evidence of copying.

Every pair of a class is ranked in two steps, so a class of 500 stays cheap (``bench.similarity``):
one matrix product counts the fingerprints each pair shares (a 0/1 students x fingerprints
matrix times its transpose), which picks the ``candidates`` most-overlapping pairs; copydetect's
own comparison (:func:`copydetect.compare_files`: the share of each solution's tokens covered
by copied slices) then scores those, and that score is what is ranked and shown.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)

NOISE = 25  # copydetect's default noise threshold: matches shorter than this many tokens are ignored
GUARANTEE = 30  # ... and its guarantee threshold: matches this long are always found
WINDOW = GUARANTEE - NOISE + 1
FILENAME = "solution.py"
LANGUAGE = "python"  # for the tokenizer (pygments), without a look-up by file name
# Fingerprints kept in memory, by code and boilerplate (each a few tens of KB): tokenising is
# nearly all of a class's cost, and the ranking, a pair and the CSV read the same solutions.
CACHED = 1024
# A pair must share at least this many (filtered) tokens outside the boilerplate: otherwise two
# solutions that are nearly all given code share only the seams between its parts, which is
# nothing yet is a large share of the little that is left.
MIN_SHARED = 2 * GUARANTEE
CANDIDATES = 200  # pairs scored exactly per problem, picked by shared fingerprints
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)


def _copydetect() -> Any:
    """copydetect, imported when first needed: it pulls in matplotlib, which the app rarely needs."""
    import copydetect

    return copydetect


def statement_code(markdown: str) -> str:
    """The fenced code blocks of a statement, one after another (the rest is prose)."""
    return "\n".join(m.group(2) for m in _FENCE.finditer(markdown))


class Boilerplate:
    """The fingerprints of what every student was given: starter code and statement code."""

    def __init__(self, *sources: str) -> None:
        found: set[int] = set()
        for text in sources:
            if text.strip():
                # Every k-gram of it (a window of 1), not only the winnowed ones: a solution's
                # winnowing picks its own minima around the given code's edges.
                given = _copydetect().CodeFingerprint(
                    FILENAME, NOISE, 1, language=LANGUAGE, fp=io.StringIO(text)
                )
                found |= given.hashes
        self.hashes: np.ndarray = np.array(sorted(found), np.int64)


def _fingerprint(code: str, boilerplate: Boilerplate | None = None) -> Any:
    removed = boilerplate.hashes if boilerplate is not None and len(boilerplate.hashes) else None
    return _cached(code, removed.tobytes() if removed is not None else b"")


@functools.lru_cache(maxsize=CACHED)
def _cached(code: str, removed: bytes) -> Any:
    """Fingerprints of ``code`` without the ``removed`` hashes (an int64 array's bytes); read-only
    once made (copydetect's comparisons never change them), so a class's second look is cheap."""
    hashes = np.frombuffer(removed, np.int64) if removed else None
    return _copydetect().CodeFingerprint(
        FILENAME, NOISE, WINDOW, hashes, language=LANGUAGE, fp=io.StringIO(code)
    )


@dataclass(frozen=True)
class Pair(Generic[K]):
    """Two solutions and how much of each is covered by code the other also has (0..1)."""

    left: K
    right: K
    left_share: float
    right_share: float

    @property
    def score(self) -> float:
        """The larger share: a short solution copied whole into a longer one still ranks high."""
        return max(self.left_share, self.right_share)


@dataclass(frozen=True)
class Segment:
    text: str
    shared: bool


@dataclass(frozen=True)
class SideBySide:
    left: list[Segment]
    right: list[Segment]
    left_share: float
    right_share: float


def _shared_counts(prints: list[Any]) -> np.ndarray:
    """``[i, j]``: how many fingerprints solutions i and j have in common (one matrix product)."""
    sizes = [len(p.hashes) for p in prints]
    if sum(sizes) == 0:
        return np.zeros((len(prints), len(prints)), np.float32)
    every = np.fromiter((h for p in prints for h in p.hashes), np.int64, sum(sizes))
    _, columns = np.unique(every, return_inverse=True)
    rows = np.repeat(np.arange(len(prints)), sizes)
    matrix = np.zeros((len(prints), int(columns.max()) + 1), np.float32)
    matrix[rows, columns] = 1.0
    return matrix @ matrix.T


def rank(
    works: Sequence[tuple[K, str]], boilerplate: Boilerplate, candidates: int = CANDIDATES
) -> list[Pair[K]]:
    """Pairs of ``(key, code)`` works, most similar first (none sharing under ``MIN_SHARED`` tokens)."""
    prints = [_fingerprint(code, boilerplate) for _, code in works]
    shared = _shared_counts(prints)
    sizes = np.array([max(len(p.hashes), 1) for p in prints], np.float32)
    overlap = np.triu(shared / np.minimum.outer(sizes, sizes), k=1)
    count = min(candidates, int(np.count_nonzero(overlap)))
    if count == 0:
        return []
    best = np.argpartition(overlap, -count, axis=None)[-count:]
    pairs = []
    for i, j in zip(*np.unravel_index(best, overlap.shape), strict=True):
        tokens, (left_share, right_share), _ = _copydetect().compare_files(prints[i], prints[j])
        if tokens >= MIN_SHARED:
            pairs.append(Pair(works[i][0], works[j][0], float(left_share), float(right_share)))
    pairs.sort(key=lambda p: (-p.score, str(p.left), str(p.right)))
    return pairs


def _segments(code: str, slices: Any) -> list[Segment]:
    """``code`` cut at copydetect's slices (character offsets): shared parts and the rest, in order."""
    out: list[Segment] = []
    at = 0
    for start, end in sorted(zip(*(np.asarray(s, int).tolist() for s in slices), strict=True)):
        start, end = max(start, at), min(end, len(code))
        if start >= end:
            continue
        if start > at:
            out.append(Segment(code[at:start], False))
        out.append(Segment(code[start:end], True))
        at = end
    if at < len(code):
        out.append(Segment(code[at:], False))
    return out


def side_by_side(left: str, right: str, boilerplate: Boilerplate) -> SideBySide:
    """Both solutions cut into shared and unshared segments (plain text: the page escapes it)."""
    a, b = _fingerprint(left, boilerplate), _fingerprint(right, boilerplate)
    _, (left_share, right_share), (left_slices, right_slices) = _copydetect().compare_files(a, b)
    return SideBySide(
        _segments(a.raw_code, left_slices),
        _segments(b.raw_code, right_slices),
        float(left_share),
        float(right_share),
    )
