"""Every model, imported once so ``Base.metadata`` is complete (Alembic autogenerate uses it)."""

from app.accounts.models import User
from app.authoring.models import ProblemDraft
from app.billing.models import BillingEvent
from app.courses.models import Assignment, Course, CourseMember, Regrade
from app.drafts.models import CodeDraft
from app.hints.models import HintReveal
from app.kit.db import Base
from app.problems.models import Problem, ProblemOwner, ProblemTag, ProblemVersion, Track
from app.progress.models import LearnerProblem, ProblemStats
from app.reports.models import TestReport
from app.solutions.models import (
    GiveUp,
    HiddenEditorial,
    Solution,
    SolutionComment,
    SolutionHold,
    SolutionTag,
    SolutionVote,
)
from app.submissions.models import Submission, SubmissionGate

__all__ = [
    "Assignment",
    "Base",
    "BillingEvent",
    "CodeDraft",
    "Course",
    "CourseMember",
    "GiveUp",
    "HiddenEditorial",
    "HintReveal",
    "LearnerProblem",
    "Problem",
    "ProblemDraft",
    "ProblemOwner",
    "ProblemStats",
    "ProblemTag",
    "ProblemVersion",
    "Regrade",
    "Solution",
    "SolutionComment",
    "SolutionHold",
    "SolutionTag",
    "SolutionVote",
    "Submission",
    "SubmissionGate",
    "TestReport",
    "Track",
    "User",
]
