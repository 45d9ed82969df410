"""The gate of a viewer on a submission's cases: the one place every route that shows a submission
builds its view (``view_of``; its page, the compare page, ``/api``, ``/api/v1`` with or without
``?wait=true``, an idempotent replay, a report).

The rule: a learner keeps their own code, verdicts and which cases passed forever, but the cases'
values, inputs and the judge's words about them are the problem's, so a Premium problem's stay
behind Premium (``locked``) once Premium is lost, exactly like its hidden parts on the problem page
(``problems.service.can_work_on``). A failed public case offers the statement's example as "Try
this input" (``[example_input]`` of the version it ran on; ``tests/runner/test_bank_custom_input.py``
keeps it the public case's input): read once per version and process, since versions never change,
so a verdict handed over by the judge is shown without another read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.problems import repository as problems_repository
from app.problems import service as problems
from app.problems.models import Problem
from app.submissions.models import CUSTOM, Submission
from app.submissions.views import FAILED_STATUSES, SubmissionView
from runner.format.inputs import input_text
from runner.format.problem import ProblemFormatError, parse_metadata


class _Examples:
    """The example input text of recent versions ((version id, slug) -> text or None), bounded."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self.texts: OrderedDict[tuple[int, str], str | None] = OrderedDict()
        self.lock = threading.Lock()

    def known(self, version_id: int | None, slug: str) -> bool:
        with self.lock:
            return version_id is not None and (version_id, slug) in self.texts

    def get(self, version_id: int | None, slug: str) -> str | None:
        with self.lock:
            return self.texts.get((version_id, slug)) if version_id is not None else None

    def read(self, session: Session, version_id: int | None, slug: str) -> str | None:
        if version_id is None:
            return None
        key = (version_id, slug)
        with self.lock:
            if key in self.texts:
                self.texts.move_to_end(key)
                return self.texts[key]
        text = _example_text(session, version_id, slug)
        with self.lock:
            self.texts[key] = text
            while len(self.texts) > self.size:
                self.texts.popitem(last=False)
        return text


_examples = _Examples()


def _example_text(session: Session, version_id: int, slug: str) -> str | None:
    version = problems_repository.get_version(session, version_id)
    toml = version.files.get("problem.toml") if version is not None else None
    if not isinstance(toml, str):
        return None
    try:
        example = parse_metadata(toml, slug)["example_input"]
    except ProblemFormatError:
        return None
    return input_text(example) if example is not None else None


def failed_public(submission: Submission) -> bool:
    """Whether a public case of ``submission`` failed (or raised): it then offers its input."""
    if submission.mode == CUSTOM:
        return False  # a custom run's one case is the learner's own input
    return any(c.get("public") and c.get("status") in FAILED_STATUSES for c in submission.cases or [])


@dataclass(frozen=True)
class ViewGate:
    """What one viewer may see of a problem's submissions: taken once per request, so a route that
    waits for a verdict applies the same gate to the finished row it is handed."""

    locked: bool  # the viewer may no longer work on the problem (Premium lost)

    def covers(self, submission: Submission, slug: str) -> bool:
        """Whether :meth:`view` shows ``submission`` whole without a read (a finished row handed
        over by the judge whose failed public case's version is not known yet needs one)."""
        if self.locked or not failed_public(submission):
            return True
        return _examples.known(submission.problem_version_id, slug)

    def view(self, submission: Submission, slug: str, url: str | None = None) -> SubmissionView:
        offered = not self.locked and failed_public(submission)
        shown = _examples.get(submission.problem_version_id, slug) if offered else None
        return SubmissionView.of(submission, slug, url, locked=self.locked, public_input=shown)


def gate_for(
    session: Session, viewer: User | None, submission: Submission, problem: Problem, now: datetime
) -> ViewGate:
    """The gate of ``viewer`` on ``submission``'s problem (with the example input of the version it
    ran on at hand, when a public case failed)."""
    if not problems.can_work_on(problem, viewer, now):
        return ViewGate(locked=True)
    if failed_public(submission):
        _examples.read(session, submission.problem_version_id, problem.slug)
    return ViewGate(locked=False)


def view_of(
    session: Session,
    viewer: User | None,
    submission: Submission,
    problem: Problem,
    now: datetime,
    url: str | None = None,
) -> SubmissionView:
    """The one view of a submission for ``viewer``, behind the problem's gate."""
    return gate_for(session, viewer, submission, problem, now).view(submission, problem.slug, url)
