"""``python -m bench.similarity`` (``make bench``): similarity across a class of 500, on demand.

What an instructor's click on *Similarity* costs for one problem of a 500-student class: every
solution fingerprinted (copydetect, the starter code and the statement's code as boilerplate),
every pair's shared fingerprints counted, the closest pairs compared exactly and ranked
(:func:`app.courses.fingerprints.rank`); then one pair shown side by side. The class is the
tests' 30 honest ``custom-sgd-optimizer`` solutions (tests/app/courses/similarity_class.py),
each given to many students under their own names and in their own order. This measures cost
only (many near-identical students make the worst case: every candidate pair is compared in full);
that a copy ranks first is the tests' business (tests/app/courses/test_similarity.py).

Nearly all of the cost is tokenising (pygments, inside copydetect), once per solution; the
fingerprints are then cached in memory, so the pair view, the CSV and a second look are cheap.
Targets: ranking 500 students ≤ 10 s median the first time, ≤ 1 s again. Exit status 1 if missed.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from pathlib import Path

from app.courses import fingerprints
from tests.app.courses.similarity_class import honest_class

ROOT = Path(__file__).resolve().parents[1]
PROBLEM = ROOT / "problems" / "custom-sgd-optimizer"
COLD_S = 10.0
WARM_S = 1.0
NAMES = ("lr", "loss", "group", "state", "model", "optimizer", "losses", "closure", "p", "g", "buf")


def _student(code: str, rng: random.Random) -> str:
    """One student's version of an honest solution: their own names, functions in their own order."""
    for name in rng.sample(NAMES, 4):
        code = re.sub(rf"\b{name}\b", f"{name}_{rng.randrange(10**6)}", code)
    head, rest = code.split("\nclass CustomSGD", 1)
    klass, train = rest.split("\n\ndef ", 1)
    if rng.random() < 0.5:
        return code
    return head + "\ndef " + train.rstrip() + "\n\n\nclass CustomSGD" + klass.rstrip() + "\n"


def make_class(students: int, seed: int = 1) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    honest = honest_class()
    return [(f"student-{i}", _student(honest[i % len(honest)], rng)) for i in range(students)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args()
    statement = fingerprints.statement_code((PROBLEM / "statement.md").read_text())
    boilerplate = fingerprints.Boilerplate((PROBLEM / "starter.py").read_text(), statement)
    works = make_class(args.students)
    fingerprints.rank(works[:10], boilerplate)  # warm-up: imports copydetect, pygments' lexer
    cold, warm = [], []
    ranked: list[fingerprints.Pair[str]] = []
    for sample in range(args.samples):
        # A first look at code never fingerprinted: each sample's solutions end in a comment of
        # their own, so none is in the cache (which is keyed by the code) and the work is the same.
        look = [(name, f"{code}\n# look {sample}\n") for name, code in works]
        start = time.perf_counter()
        ranked = fingerprints.rank(look, boilerplate)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        fingerprints.rank(look, boilerplate)
        warm.append(time.perf_counter() - start)
    start = time.perf_counter()
    fingerprints.side_by_side(works[0][1], works[-1][1], boilerplate)
    pair_ms = (time.perf_counter() - start) * 1000
    pairs = args.students * (args.students - 1) // 2
    print(f"similarity: {args.students} students ({pairs:,} pairs), {len(ranked)} ranked pairs kept")
    for name, times in (("first look (fingerprints made)", cold), ("again (fingerprints cached)", warm)):
        print(
            f"  {name}, median of {args.samples}: {statistics.median(times):.2f} s (min {min(times):.2f} s)"
        )
    print(f"  one pair side by side (cached): {pair_ms:.1f} ms")
    ok = statistics.median(cold) <= COLD_S and statistics.median(warm) <= WARM_S
    mark = "ok" if ok else "FAIL"
    print(f"  [{mark}] {args.students} students: first look ≤ {COLD_S:g} s, again ≤ {WARM_S:g} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
