"""The one view of an assignment's analytics: what the pages and ``/api/v1`` show."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, Field


class FailureCount(BaseModel):
    key: str = Field(description="`hidden:<case>`, `public:<case>` or `rule:<rule id>`")
    label: str = Field(description='In words: "hidden · batch of one", "public · example", "rule no-loops"')
    students: int = Field(description="Active students with at least one failed Submit failing it")
    attempts: int = Field(description="Failed Submits failing it")


class DayKinds(BaseModel):
    day: date = Field(description="A day in the course's time zone")
    counts: dict[str, int] = Field(
        description="Failed Submits that day by kind (a Submit may fail in several)"
    )


class StudentRef(BaseModel):
    user_id: int
    email: str
    section: str = ""


class StuckStudent(StudentRef):
    problem: str = Field(description="The problem's slug")
    failed: int = Field(description="Failed Submits on it")
    best_passed: int = Field(description="The most cases one of their Submits passed")
    best_total: int = Field(description="Out of how many")
    since_best: int = Field(description="Submits since their best one, none better")
    last_at: datetime = Field(description="Their last run or Submit on it")


class ProblemNumbers(BaseModel):
    slug: str
    title: str
    attempted: int = Field(description="Active students who ran or submitted it in the assignment's window")
    solved: int = Field(description="Active students with an accepted Submit")
    median_minutes_to_solve: float | None = Field(
        description="From a solver's first run or Submit to their first accepted Submit (null: no solver)"
    )
    median_attempts_to_solve: float | None = Field(
        description="Submits up to and including the first accepted one (null: no solver)"
    )
    stuck: int = Field(description="Students stuck on it (see `stuck`)")
    gave_up: int = Field(description='Active students who chose "give up and show solutions" on it')
    top_case: FailureCount | None = Field(description="The case failed by the most students")
    top_rule: FailureCount | None = Field(description="The rule broken by the most students")


class ProblemDetail(ProblemNumbers):
    cases: list[FailureCount] = Field(description="Failed cases, most students first")
    rules: list[FailureCount] = Field(description="Broken rules, most students first")
    minutes_to_solve: list[float] = Field(description="Each solver's minutes to solve, sorted")


class AssignmentAnalytics(BaseModel):
    course_id: int
    assignment_id: int
    title: str
    timezone: str
    students: int = Field(description="Active students in the course")
    problems: list[ProblemNumbers]
    kinds: list[str] = Field(description="The failure kinds, in the charts' order")
    kinds_over_time: list[DayKinds]
    not_started: list[StudentRef] = Field(
        description="Active students with no run or Submit on any problem, by email: the first 50 unless "
        "`lists=all`"
    )
    not_started_total: int = Field(description="How many students have not started, in all")
    stuck: list[StuckStudent] = Field(
        description="Not solved, at least 5 failed Submits, and no progress: their last 3 Submits passed no "
        "more cases than their best, or nothing got better for 24 hours. Most failures first: the first 50 "
        "unless `lists=all`"
    )
    stuck_total: int = Field(description="How many (student, problem) are stuck, in all")
    computed_at: datetime


class ProblemAnalytics(BaseModel):
    course_id: int
    assignment_id: int
    title: str = Field(description="The assignment's title")
    timezone: str
    students: int
    problem: ProblemDetail
    kinds: list[str]
    kinds_over_time: list[DayKinds]
    not_started: list[StudentRef] = Field(
        description="Active students with no run or Submit on this problem: the first 50 unless `lists=all`"
    )
    not_started_total: int
    stuck: list[StuckStudent] = Field(description="The first 50 unless `lists=all`")
    stuck_total: int
    computed_at: datetime
