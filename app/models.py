"""Every model, imported once so ``Base.metadata`` is complete (Alembic autogenerate uses it)."""

from app.accounts.models import User
from app.analytics.models import (
    AnalyticsAssignment,
    AnalyticsCaseTotal,
    AnalyticsFailure,
    AnalyticsKind,
    AnalyticsKindTotal,
    AnalyticsProgress,
    AnalyticsWindow,
)
from app.authoring.models import ProblemDraft
from app.billing.models import BillingEvent
from app.courses.models import Assignment, Course, CourseMember, Regrade
from app.discussion.models import Reply, Revision, Thread, Vote
from app.drafts.models import CodeDraft
from app.hints.models import HintReveal
from app.kit.db import Base
from app.lti.models import LtiGradeSync, LtiPlatform
from app.moderation.models import ModerationReport
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
    "AnalyticsAssignment",
    "AnalyticsCaseTotal",
    "AnalyticsFailure",
    "AnalyticsKind",
    "AnalyticsKindTotal",
    "AnalyticsProgress",
    "AnalyticsWindow",
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
    "LtiGradeSync",
    "LtiPlatform",
    "ModerationReport",
    "Problem",
    "ProblemDraft",
    "ProblemOwner",
    "ProblemStats",
    "ProblemTag",
    "ProblemVersion",
    "Regrade",
    "Reply",
    "Revision",
    "Solution",
    "SolutionComment",
    "SolutionHold",
    "SolutionTag",
    "SolutionVote",
    "Submission",
    "SubmissionGate",
    "TestReport",
    "Thread",
    "Track",
    "User",
    "Vote",
]
