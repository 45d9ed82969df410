"""What moderation needs from a domain whose users post: the contract every adapter implements.

A domain (``app.discussion``, ``app.solutions``) keeps ``hidden_at``/``deleted_at`` on its own
tables and describes its posts here; moderation never reads their tables itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.orm import Session


@dataclass(frozen=True)
class TargetInfo:
    kind: str  # "solution", "solution_comment", "editorial", "thread", "reply"
    id: int
    author_id: int | None
    problem_slug: str
    excerpt: str  # plain text, for the queue
    url: str  # where the post is shown
    hidden: bool


class ModerationTarget(Protocol):
    kinds: tuple[str, ...]

    def describe(self, session: Session, kind: str, target_id: int) -> TargetInfo | None:
        """The post, or None when there is none (or its author deleted it)."""
        ...

    def set_hidden(self, session: Session, kind: str, target_id: int, hidden: bool) -> None: ...
