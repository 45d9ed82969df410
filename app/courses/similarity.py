"""Similarity across a class: which students' solutions to an assignment's problems look copied.

For each problem of the assignment, every student member's one solution is compared with every
other's (:mod:`app.courses.fingerprints`): their latest accepted submission on it (applied
regrades' verdicts count), or, with none accepted, their latest. Only the course's work is read
(:mod:`app.courses.visibility`: inside the assignment's window, while enrolled), so a pair never
shows an instructor code they could not see in the drill-down. Instructors only — the pages and
the API check that before calling anything here. Computed when asked; nothing is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import assignments as assignments_mod
from app.courses import fingerprints, repository, scoring, visibility
from app.courses.gradebook import display_name
from app.courses.models import STUDENT, Assignment, Course
from app.kit import spreadsheets
from app.kit.errors import NotFound
from app.problems import service as problems_service
from app.problems.models import Problem
from app.submissions.models import Submission

STARTER = "starter.py"
STATEMENT = "statement.md"


@dataclass(frozen=True)
class Work:
    """A student's solution to one problem: the submission compared for them."""

    user_id: int
    email: str
    submission: Submission

    @property
    def name(self) -> str:
        return display_name(self.email)

    @property
    def accepted(self) -> bool:
        return self.submission.verdict == scoring.ACCEPTED


@dataclass(frozen=True)
class RankedPair:
    problem: Problem
    left: Work
    right: Work
    left_share: float  # of the left solution's tokens, the part shared with the right one (0..1)
    right_share: float

    @property
    def score(self) -> float:
        return max(self.left_share, self.right_share)


@dataclass(frozen=True)
class Report:
    course: Course
    assignment: Assignment
    problems: list[Problem]
    compared: dict[int, int]  # problem id -> students with a solution to it
    pairs: list[RankedPair]  # every problem's, most similar first


@dataclass(frozen=True)
class PairView:
    problem: Problem
    left: Work
    right: Work
    shown: fingerprints.SideBySide


def boilerplate(session: Session, problem: Problem) -> fingerprints.Boilerplate:
    """What every student was given: the live version's starter code and its statement's code."""
    files: dict[str, str] = problems_service.current_version(session, problem).files
    statement = fingerprints.statement_code(files.get(STATEMENT, ""))
    return fingerprints.Boilerplate(files.get(STARTER, ""), statement)


def _works(session: Session, course: Course, assignment: Assignment) -> dict[int, list[Work]]:
    """Per problem id, each student's solution (latest accepted, else latest), by user id."""
    students: dict[int, User] = {
        user.id: user for _, user in repository.members_with_users(session, course.id, STUDENT)
    }
    problem_ids = [link.problem_id for link in assignment.problems]
    work = visibility.course_work(session, [assignment], list(students))
    overrides = scoring.Overrides.from_regrades(session, repository.regrades(session, [assignment.id]))
    latest: dict[tuple[int, int], Submission] = {}
    accepted: dict[tuple[int, int], Submission] = {}
    for s in repository.submit_submissions(session, list(students), problem_ids):  # oldest first
        if s.is_copy or not work.counts_for(s.user_id, assignment.id, s.created_at):
            continue
        key = (s.problem_id, s.user_id)
        latest[key] = s
        verdict = overrides.verdicts.get((assignment.id, s.problem_id), {}).get(s.id, s.verdict)
        if verdict == scoring.ACCEPTED:
            accepted[key] = s
    out: dict[int, list[Work]] = {pid: [] for pid in problem_ids}
    for (problem_id, user_id), submission in sorted(latest.items()):
        chosen = accepted.get((problem_id, user_id), submission)
        out[problem_id].append(Work(user_id, students[user_id].email, chosen))
    return out


def report(session: Session, course: Course, assignment: Assignment) -> Report:
    """Every problem's pairs, ranked together (the caller has checked the viewer instructs ``course``)."""
    problems = assignments_mod.assignment_problems(session, assignment)
    by_problem = _works(session, course, assignment)
    pairs: list[RankedPair] = []
    for problem in problems:
        works = {w.user_id: w for w in by_problem.get(problem.id, [])}
        ranked = fingerprints.rank(
            [(uid, w.submission.code) for uid, w in works.items()], boilerplate(session, problem)
        )
        pairs += [
            RankedPair(problem, works[p.left], works[p.right], p.left_share, p.right_share) for p in ranked
        ]
    pairs.sort(key=lambda p: (-p.score, p.problem.slug, p.left.email, p.right.email))
    compared = {pid: len(works) for pid, works in by_problem.items()}
    return Report(course, assignment, problems, compared, pairs)


def pair(
    session: Session, course: Course, assignment: Assignment, slug: str, left_id: int, right_id: int
) -> PairView:
    """Two students' solutions to one problem side by side, the shared regions marked."""
    problem = next(
        (p for p in assignments_mod.assignment_problems(session, assignment) if p.slug == slug), None
    )
    if problem is None:
        raise NotFound(f"The assignment has no problem {slug!r}.")
    works = {w.user_id: w for w in _works(session, course, assignment).get(problem.id, [])}
    if left_id == right_id or left_id not in works or right_id not in works:
        raise NotFound("No such pair of solutions in this assignment.")
    left, right = works[left_id], works[right_id]
    shown = fingerprints.side_by_side(
        left.submission.code, right.submission.code, boilerplate(session, problem)
    )
    return PairView(problem, left, right, shown)


def _percent(share: float) -> float:
    return round(share * 100, 1)


def as_json(result: Report) -> dict[str, Any]:
    def side(work: Work, share: float) -> dict[str, Any]:
        return {
            "user_id": work.user_id,
            "email": work.email,
            "submission_id": work.submission.id,
            "accepted": work.accepted,
            "shared_percent": _percent(share),
        }

    return {
        "assignment": {"id": result.assignment.id, "title": result.assignment.title},
        "problems": [
            {"slug": p.slug, "title": p.title, "students": result.compared.get(p.id, 0)}
            for p in result.problems
        ],
        "pairs": [
            {
                "problem": p.problem.slug,
                "similarity_percent": _percent(p.score),
                "left": side(p.left, p.left_share),
                "right": side(p.right, p.right_share),
            }
            for p in result.pairs
        ],
    }


def to_csv(result: Report) -> bytes:
    """One row per ranked pair, for the record (``app.kit.spreadsheets``: cells neutralised)."""
    header = [
        "problem", "similarity %",
        "student A", "student A id", "submission A", "A shared %",
        "student B", "student B id", "submission B", "B shared %",
    ]  # fmt: skip
    rows: list[list[Any]] = [header]
    for p in result.pairs:
        rows.append(
            [
                p.problem.slug,
                _percent(p.score),
                p.left.email,
                p.left.user_id,
                p.left.submission.id,
                _percent(p.left_share),
                p.right.email,
                p.right.user_id,
                p.right.submission.id,
                _percent(p.right_share),
            ]
        )
    return spreadsheets.to_csv(rows)
