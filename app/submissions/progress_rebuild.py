"""Rebuild the maintained progress state (``app.progress``) from the submissions table.

The state is written as facts happen; this is the operator's check and repair
(``torchdrill stats rebuild``), and what the tests compare the maintained state with after a
concurrent load. It reads every practice submission, so it is slow on purpose and never runs
on a request.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.progress import repository as progress
from app.submissions import repository


@dataclass(frozen=True)
class Comparison:
    """How the maintained state differs from the one the submissions table implies."""

    learner_rows: int
    stats_rows: int
    learner_differences: int
    stats_differences: int

    @property
    def in_step(self) -> bool:
        return self.learner_differences == 0 and self.stats_differences == 0


def compare(session: Session) -> Comparison:
    learners, stats = repository.progress_from_submissions(session)
    maintained_learners = progress.learner_rows(session)
    maintained_stats = progress.stats_rows(session)
    return Comparison(
        learner_rows=len(learners),
        stats_rows=len(stats),
        learner_differences=len(set(learners) ^ set(maintained_learners)),
        stats_differences=len(set(stats) ^ set(maintained_stats)),
    )


def rebuild(session: Session) -> Comparison:
    """Replace the maintained state with the rebuilt one; returns how far off it was before."""
    before = compare(session)
    learners, stats = repository.progress_from_submissions(session)
    progress.replace_all(session, learners, stats)
    session.flush()
    return before
