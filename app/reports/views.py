"""The one view of a test report, for the API, the pages and the CLI.

What a reader sees depends on who they are (:mod:`app.reports.access`):

- the reporter: their note, the case's name, the answer, the re-judge's outcome, and the case's
  result as their submission shows it — but only while they may work on the problem (a learner
  who lost Premium reads no Premium problem's tests through a report);
- the problem's owners, admins and the instructors whose course sees the submission: all of
  that, plus the submission attached (its code and every case's result).

Hidden cases are :class:`app.submissions.views.CaseView`'s: never an expected value or output.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from app.reports.models import TestReport
from app.submissions.models import Submission
from app.submissions.views import CaseView, SubmissionView
from runner.verdict import Verdict


class ReportOutcome(BaseModel):
    """The reported submission re-judged on a newer version of the problem (a copy: the learner's
    own submission is never rewritten)."""

    version: int | None = Field(description="The problem version it was re-judged on")
    status: str = Field(description="queued, running or finished")
    verdict: Verdict | None
    verdict_label: str | None
    passed: int | None
    total: int | None

    @classmethod
    def of(cls, copy: Submission, version: int | None) -> ReportOutcome:
        verdict = Verdict.parse(copy.verdict)
        return cls(
            version=version,
            status=copy.status,
            verdict=verdict,
            verdict_label=verdict.label if verdict else None,
            passed=copy.passed,
            total=copy.total,
        )


class ReportView(BaseModel):
    id: int
    problem: str = Field(description="The problem's slug")
    submission_id: int
    case: str = Field(description="The name of the reported test case")
    note: str = Field(description="What the learner thinks is wrong")
    status: str = Field(description="open, not_a_bug or fixed")
    reply: str = Field(description="The answer of the problem's owners or instructors (empty until answered)")
    answered_at: datetime | None
    created_at: datetime
    updated_at: datetime
    outcome: ReportOutcome | None = Field(
        description="The submission re-judged after a fix (null until a re-judge starts)"
    )
    case_result: CaseView | None = Field(
        description="The case as the submission's result shows it (null when the reader may not read "
        "the problem's tests, e.g. a Premium problem without Premium)"
    )
    reporter: str | None = Field(default=None, description="The reporter's email (staff only)")
    submission: SubmissionView | None = Field(
        default=None, description="The reported submission's result (staff only)"
    )
    code: str | None = Field(default=None, description="The reported submission's code (staff only)")
    url: str

    @classmethod
    def of(
        cls,
        report: TestReport,
        slug: str,
        submission: Submission,
        view: SubmissionView,
        *,
        outcome: ReportOutcome | None,
        staff: bool,
        reporter_email: str | None = None,
    ) -> ReportView:
        """``view``: the submission as the reader may see it (``submissions.gate.view_of``, behind
        the problem's gate: a locked view's case is not shown)."""
        case = next((c for c in view.cases if c.name == report.case_name), None)
        return cls(
            id=report.id,
            problem=slug,
            submission_id=report.submission_id,
            case=report.case_name,
            note=report.note,
            status=report.status,
            reply=report.reply,
            answered_at=report.answered_at,
            created_at=report.created_at,
            updated_at=report.updated_at,
            outcome=outcome,
            case_result=case if not view.locked else None,
            reporter=reporter_email if staff else None,
            submission=view if staff else None,
            code=submission.code if staff else None,
            url=f"/api/v1/reports/{report.id}",
        )


class ReportList(BaseModel):
    items: list[ReportView]
    next: str | None = Field(description="The URL of the next (older) page, or null")


class RejudgeTarget(BaseModel):
    report_id: int
    submission_id: int
    ran_on: int | None = Field(description="The version the submission was judged on")


class RejudgePlan(BaseModel):
    """What a re-judge does (``dry_run``) or did: the reported submissions judged again on ``version``."""

    problem: str
    version: int | None
    dry_run: bool
    targets: list[RejudgeTarget]
