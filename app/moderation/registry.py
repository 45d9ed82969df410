"""The domains whose posts can be reported: each one's adapter (``ModerationTarget``)."""

from __future__ import annotations

from app.discussion.moderation import DiscussionTargets
from app.moderation.targets import ModerationTarget
from app.solutions.moderation import TARGET as SOLUTION_TARGETS

TARGETS: list[ModerationTarget] = [DiscussionTargets(), SOLUTION_TARGETS]


def target_for(kind: str) -> ModerationTarget | None:
    return next((t for t in TARGETS if kind in t.kinds), None)


def kinds() -> tuple[str, ...]:
    return tuple(k for t in TARGETS for k in t.kinds)
