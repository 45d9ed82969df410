"""Keeping the analytics state: in each verdict's transaction, and where the course's work changes.

A student's rows on an assignment are a function of their submissions and of their *window*: the
spans in which the course sees their work (``app.courses.visibility.course_work``: the assignment's
dates, their extension, their enrolment periods) and the assignment's problems. A verdict's writer
locks the student's window row and, when the window is the one the rows were computed for and the
submission is later than every one counted, adds it in a constant number of statements
(``app.analytics.increments``); otherwise (work judged out of order, a re-judge, a window never
computed) it recomputes the student's rows on the problem (or every problem) from the submissions
table. What changes a window without a verdict (an extension, new dates or problems, joining or
leaving) calls :func:`work_changed` in its own transaction (``app.courses.work_changes``), which
recomputes the rows of the students it touched whose counted work it changed
(:func:`changed_slices`, a few statements for the whole class) and gives the others the new
window's key — never a read. So the state equals what :func:`rebuild` computes from scratch, at
every commit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.analytics import increments, maintained_rows, rules, sources, tables, windows
from app.courses import dates
from app.courses.models import Assignment, Course
from app.courses.visibility import CourseWork, course_work
from app.submissions.models import Submission


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def problems_key(assignment: Assignment) -> str:
    return _digest(",".join(str(p) for p in sorted(link.problem_id for link in assignment.problems)))


def window_key(work: CourseWork, assignment: Assignment, user_id: int) -> str:
    spans = work.spans.get((user_id, assignment.id), [])
    text = ";".join(
        f"{s.start.isoformat()}|{s.until.isoformat()}|{s.before.isoformat() if s.before else ''}"
        for s in spans
    )
    return _digest(problems_key(assignment) + "/" + text)


def summaries(
    session: Session, work: CourseWork, assignment: Assignment, users: Sequence[int], problems: Sequence[int]
) -> dict[tables.Slice, rules.Summary]:
    """The students' summaries on the problems, from the submissions the course sees."""
    found = sources.seen(session, users, problems)
    return {
        (u, p): rules.summarise(
            s for s in found.get((u, p), []) if work.counts_for(u, assignment.id, s.created_at)
        )
        for u in users
        for p in problems
    }


def _problems(assignment: Assignment) -> list[int]:
    return sorted(link.problem_id for link in assignment.problems)


def recompute(
    session: Session,
    work: CourseWork,
    assignment: Assignment,
    user_ids: Sequence[int],
    problem_ids: Sequence[int] | None = None,
) -> None:
    """Lock the students' windows and recompute their rows (``problem_ids`` None: every problem;
    also every problem for a student whose stored window is not the current one)."""
    if not user_ids:
        return
    stored = windows.lock_windows(session, assignment.id, user_ids)
    current = {u: window_key(work, assignment, u) for u in user_ids}
    if problem_ids is None:
        whole, some = list(user_ids), []
    else:
        whole = [u for u in user_ids if stored.get(u) != current[u]]
        some = [u for u in user_ids if stored.get(u) == current[u]]
    if whole:
        found = summaries(session, work, assignment, whole, _problems(assignment))
        maintained_rows.replace_rows(session, assignment.id, whole, None, found)
    if some and problem_ids:
        found = summaries(session, work, assignment, some, sorted(problem_ids))
        maintained_rows.replace_rows(session, assignment.id, some, sorted(problem_ids), found)
    windows.set_window_keys(
        session, assignment.id, {u: current[u] for u in whole if stored.get(u) != current[u]}
    )


class Listener:
    """The verdict listener (``app.submissions.verdict_listeners``)."""

    def recorded(self, session: Session, submission: Submission) -> None:
        self._student_changed(session, submission, incremental=True)

    def reopened(self, session: Session, submission: Submission) -> None:
        self._student_changed(session, submission, incremental=False)

    @staticmethod
    def _student_changed(session: Session, submission: Submission, *, incremental: bool) -> None:
        user_id, problem_id = submission.user_id, submission.problem_id
        # One query for a learner in no course holding the problem: the whole cost off courses.
        assignments = sources.assignments_for(session, user_id, problem_id)
        by_course: dict[int, list[Assignment]] = {}
        for assignment in assignments:
            by_course.setdefault(assignment.course_id, []).append(assignment)
        seen = rules.Seen(
            submission.created_at, submission.mode, submission.verdict, submission.passed,
            submission.total, submission.cases,
        )  # fmt: skip
        for group in by_course.values():
            work = course_work(session, group, [user_id])
            for assignment in group:
                if incremental and _applied(session, work, assignment, user_id, problem_id, seen):
                    continue
                recompute(session, work, assignment, [user_id], [problem_id])


def _applied(
    session: Session,
    work: CourseWork,
    assignment: Assignment,
    user_id: int,
    problem_id: int,
    seen: rules.Seen,
) -> bool:
    """The verdict applied as an increment (``app.analytics.increments``), or nothing to do; False
    when the student's rows must be recomputed (their window moved, or the work came out of order)."""
    stored = windows.lock_windows(session, assignment.id, [user_id])
    if stored.get(user_id) != window_key(work, assignment, user_id):
        return False
    if not rules.counts(seen) or not work.counts_for(user_id, assignment.id, seen.created_at):
        return True
    return increments.apply(session, assignment.id, user_id, problem_id, seen)


LISTENER = Listener()


def work_changed(
    session: Session, course_id: int, assignment_ids: Sequence[int] | None, user_ids: Sequence[int] | None
) -> None:
    """The ``app.courses.work_changes`` listener: in the transaction of a change of the course's
    work (an assignment's dates or problems, an extension, an enrolment), recompute the rows of
    the students it touched whose window moved, on the assignments it touched (None: all)."""
    course = session.get(Course, course_id)
    if course is None:
        return
    for assignment in sources.course_assignments(session, course_id):
        if assignment_ids is None or assignment.id in assignment_ids:
            refresh(session, course, assignment, user_ids)


def refresh(session: Session, course: Course, assignment: Assignment, user_ids: Sequence[int] | None) -> int:
    """Bring the rows of the students (None: every one) whose window moved since their rows were
    written (every student after the assignment's problems changed) to their new window; how
    many (student, problem) rows were recomputed.

    A moved window recomputes only the rows whose counted work it changed (:func:`changed_slices`);
    the others keep their rows and take the new window's key, in a few statements for the class.
    """
    problems = problems_key(assignment)
    regrouped = windows.assignment_problems_key(session, assignment.id) != problems
    users = (
        sources.enrolled_user_ids(session, course.id)
        if user_ids is None or regrouped
        else sorted(set(user_ids))
    )
    work = course_work(session, [assignment], users)
    if regrouped:
        maintained_rows.delete_other_problems(session, assignment.id, _problems(assignment))
    keys = windows.window_keys(session, assignment.id, users)
    current = {u: window_key(work, assignment, u) for u in users}
    moved = [u for u in users if keys.get(u, "") != current[u]]
    recomputed = 0
    if moved:
        windows.lock_windows(session, assignment.id, moved)
        by_problems: dict[tuple[int, ...], list[int]] = {}
        for user_id, changed in changed_slices(session, work, assignment, moved).items():
            by_problems.setdefault(tuple(sorted(changed)), []).append(user_id)
        for some, group in sorted(by_problems.items()):
            found = summaries(session, work, assignment, group, some)
            maintained_rows.replace_rows(session, assignment.id, group, some, found)
            recomputed += len(found)
        windows.set_window_keys(session, assignment.id, {u: current[u] for u in moved})
    if regrouped:
        maintained_rows.retotal(session, assignment.id)
    windows.set_assignment_problems_key(session, assignment.id, problems)
    return recomputed


def changed_slices(
    session: Session, work: CourseWork, assignment: Assignment, user_ids: Sequence[int]
) -> dict[int, set[int]]:
    """``{student: problems}`` whose counted work in the new window ``work`` differs from the one
    their rows hold, told by how many counted submissions there are and the first and last one's
    times (``rules.summarise``'s ``runs + attempts``, ``first_at``, ``last_at``): grouped by the
    database for the students on the assignment's own dates, the few with an extension read
    without their cases and checked here, all against the rows' figures in one read.

    Those three are enough because a change of the course's work moves a window only at its ends:
    the assignment's or the extension's release moves every span's start one way, its close every
    span's end one way; an enrolment adds a period after every earlier one or closes the last.
    What a change adds or drops at the start is earlier than everything it keeps (the first time
    differs), and at the end later than everything it keeps (the last time differs); a window that
    drops nothing and adds nothing counts the same number. So equal figures mean the same work,
    and the rows (a function of it, ``app.analytics.models``) need nothing but the new key.
    """
    problem_ids = _problems(assignment)
    extended = set(sources.extended_user_ids(session, assignment.id)) & set(user_ids)
    standard = dates.effective(assignment, None)
    found = sources.counted_marks(
        session, assignment.course_id, [u for u in user_ids if u not in extended], problem_ids,
        standard.release_at, standard.closes_at,
    )  # fmt: skip
    for (user_id, problem_id), times in sources.counted_times(session, sorted(extended), problem_ids).items():
        seen = [t for t in times if work.counts_for(user_id, assignment.id, t)]
        if seen:
            found[(user_id, problem_id)] = (len(seen), min(seen), max(seen))
    marks = maintained_rows.progress_marks(session, assignment.id, user_ids)
    out: dict[int, set[int]] = {}
    for user_id in user_ids:
        for problem_id in problem_ids:
            if found.get((user_id, problem_id)) != marks.get((user_id, problem_id)):
                out.setdefault(user_id, set()).add(problem_id)
    return out


@dataclass(frozen=True)
class Comparison:
    """How the maintained state differs from the one the submissions table implies."""

    rows: int
    differences: int

    @property
    def in_step(self) -> bool:
        return self.differences == 0


def _assignments(session: Session) -> list[tuple[Assignment, CourseWork, list[int]]]:
    out = []
    for assignment in sources.all_assignments(session):
        users = sources.enrolled_user_ids(session, assignment.course_id)
        out.append((assignment, course_work(session, [assignment], users), users))
    return out


def compare(session: Session) -> Comparison:
    """The maintained rows against the rows the submissions table implies (computed, not written)."""
    maintained = maintained_rows.all_rows(session)
    rebuilt: tuple[set[tuple[object, ...]], ...] = (set(), set(), set(), set(), set())
    for assignment, work, users in _assignments(session):
        rows = maintained_rows.rows_of(
            assignment.id, summaries(session, work, assignment, users, _problems(assignment))
        )
        for into, part in zip(rebuilt, maintained_rows.as_tuples(rows), strict=True):
            into |= part
    return Comparison(
        sum(len(r) for r in rebuilt), sum(len(a ^ b) for a, b in zip(maintained, rebuilt, strict=True))
    )


def rebuild(session: Session) -> Comparison:
    """Replace the state with one computed from the submissions table; how far off it was before."""
    before = compare(session)
    maintained_rows.clear(session)
    for assignment, work, users in _assignments(session):
        recompute(session, work, assignment, users)
        windows.set_assignment_problems_key(session, assignment.id, problems_key(assignment))
    session.flush()
    return before
