"""Why a regrade changes a student's score: each of their re-judged submissions whose verdict
changes (old verdict → new verdict) and the cases behind it (which case, which rule or property).

Read from the stored submissions and their re-judged copies (:mod:`app.courses.regrades`); hidden
cases are named as learners see them ("hidden 3 · batch of one"), never by their values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.courses import repository
from app.courses.models import Regrade
from app.submissions.models import Submission
from app.submissions.views import CaseView
from runner.verdict import Verdict

MAX_CASES = 6  # case changes shown per submission (the rest counted)


@dataclass(frozen=True)
class CaseChange:
    label: str
    old: str  # passed, failed, error, not_run
    new: str
    why: str  # the failing side's kind in words ("Breaks rule no-copy", "Values beyond tolerance")


@dataclass(frozen=True)
class Reason:
    submission_id: int
    created_at: datetime
    old: str  # verdict label
    new: str
    cases: list[CaseChange] = field(default_factory=list)
    more_cases: int = 0


def _label(submission: Submission) -> str:
    verdict = Verdict.parse(submission.verdict)
    return verdict.label if verdict is not None else submission.status


def _views(cases: Iterable[dict[str, Any]] | None) -> dict[str, CaseView]:
    out: dict[str, CaseView] = {}
    hidden = 0
    for case in cases or []:
        if not case.get("public"):
            hidden += 1
        view = CaseView.of(case, hidden)
        out[view.name] = view
    return out


def _why(view: CaseView | None) -> str:
    if view is None or view.status == "passed":
        return ""
    if view.failure is not None:
        return view.failure.title
    return view.status.replace("_", " ")


def case_changes(before: Submission, after: Submission) -> list[CaseChange]:
    """The cases whose status differs between a submission and its re-judged copy, in the new
    version's order (a case only one version has counts as changed)."""
    old, new = _views(before.cases), _views(after.cases)
    changes = []
    for name in [*new, *(n for n in old if n not in new)]:
        o, n = old.get(name), new.get(name)
        if o is not None and n is not None and o.status == n.status:
            continue
        shown = n or o
        assert shown is not None
        changes.append(
            CaseChange(
                label=shown.label,
                old=o.status if o is not None else "not in the old version",
                new=n.status if n is not None else "not in the new version",
                why=_why(n) or _why(o),
            )
        )
    return changes


def reasons(session: Session, regrade: Regrade, user_ids: Sequence[int]) -> dict[int, list[Reason]]:
    """``{student: [a reason per re-judged submission whose verdict or cases changed]}`` for the
    students ``user_ids`` (those whose score changes), oldest submission first."""
    wanted = set(user_ids)
    originals = {int(o): c for o, c in regrade.copies.items()}
    found = repository.submissions_by_ids(session, [*originals, *originals.values()])
    by_id = {s.id: s for s in found}
    out: dict[int, list[Reason]] = {}
    for original_id in sorted(originals):
        before, after = by_id.get(original_id), by_id.get(originals[original_id])
        if before is None or after is None or before.user_id not in wanted:
            continue
        changed = case_changes(before, after)
        if before.verdict == after.verdict and not changed:
            continue
        out.setdefault(before.user_id, []).append(
            Reason(
                submission_id=before.id,
                created_at=before.created_at,
                old=_label(before),
                new=_label(after),
                cases=changed[:MAX_CASES],
                more_cases=max(0, len(changed) - MAX_CASES),
            )
        )
    return out
