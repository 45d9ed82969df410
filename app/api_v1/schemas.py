"""Request and response bodies of API v1 (they are also its OpenAPI documentation)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Difficulty = Literal["easy", "medium", "hard"]


class ErrorOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"error": "not_found", "detail": "There is no problem called 'nope'."}]
        }
    )
    error: str = Field(description="A stable machine-readable code")
    detail: str = Field(description="A message for humans")


class RegisterIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"email": "ada@example.com", "password": "correct horse battery"}]}
    )
    email: str = Field(max_length=254)
    password: str = Field(max_length=1024)


class UserOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": 7,
                    "email": "ada@example.com",
                    "role": "student",
                    "premium": False,
                    "premium_expires_at": None,
                }
            ],
        }
    )
    id: int
    email: str
    role: Literal["student", "instructor", "admin"]
    premium: bool
    premium_expires_at: datetime | None


Scope = Literal["read", "submit", "teach"]
SCOPES_DESCRIPTION = (
    "What the token may do: `read` (GET routes), `submit` (submit and run code, reveal hints, "
    "join a course), `teach` (authoring, course management, gradebooks; instructors and admins)"
)


class TokenOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "access_token": "td_3q2x…",
                    "token_type": "bearer",
                    "id": 12,
                    "name": "laptop",
                    "scope": "read submit",
                    "scopes": ["read", "submit"],
                    "expires_at": "2027-03-05T18:00:00Z",
                }
            ]
        }
    )
    access_token: str = Field(description="Shown once; send it as `Authorization: Bearer <token>`")
    token_type: Literal["bearer"] = "bearer"
    id: int = Field(description="The token's id (to revoke it: `DELETE /api/v1/auth/tokens/{id}`)")
    name: str
    scope: str = Field(description="The scopes, space-separated (OAuth2's form)")
    scopes: list[Scope] = Field(description=SCOPES_DESCRIPTION)
    expires_at: datetime | None = Field(description="When it stops working; null: never")


class TokenInfo(BaseModel):
    id: int
    name: str
    prefix: str = Field(description="The first characters of the token, to recognise it")
    scopes: list[Scope] = Field(description=SCOPES_DESCRIPTION)
    created_at: datetime
    last_used_at: datetime | None = Field(description="Updated at most once a minute")
    expires_at: datetime | None = Field(description="When it stops working (401); null: never")


class TokenList(BaseModel):
    items: list[TokenInfo]
    next: str | None = Field(default=None, description="The URL of the next page; null on the last")


class ProblemItem(BaseModel):
    slug: str
    title: str
    difficulty: Difficulty
    category: str
    tags: list[str]
    premium: bool
    locked: bool = Field(description="True when the caller may not see all of it or run code on it")
    solved: bool = Field(description="The caller has an accepted submission")


class ProblemList(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "items": [
                        {
                            "slug": "add-tensors",
                            "title": "Add Tensors",
                            "difficulty": "easy",
                            "category": "Tensor Basics",
                            "tags": ["tensors"],
                            "premium": False,
                            "locked": False,
                            "solved": True,
                        }
                    ],
                    "next": "/api/v1/problems?limit=50&after=WyJBdXRvZ3JhZCIsMCwiVmVjdG9yIiw0Ml0",
                }
            ]
        }
    )
    items: list[ProblemItem]
    next: str | None = Field(description="The URL of the next page, or null on the last page")


class RelatedProblem(BaseModel):
    slug: str
    title: str
    difficulty: Difficulty
    premium: bool
    locked: bool


class Example(BaseModel):
    name: str
    expected: str = Field(description="The expected value of this public case, as text")


class ProblemTrack(BaseModel):
    slug: str
    title: str
    position: int = Field(description="The problem's place in the track, 1 first")
    total: int = Field(description="How many published problems the track has")
    previous: str | None = Field(description="The slug of the problem before it in the track")
    next: str | None = Field(description="The slug of the problem after it in the track")


class ProblemRule(BaseModel):
    id: str = Field(description="The rule's id, as checks and verdict messages name it")
    sentence: str = Field(description="The statement's sentence (Markdown)")


class ProblemOut(BaseModel):
    slug: str
    title: str
    difficulty: Difficulty
    category: str
    tags: list[str]
    premium: bool
    locked: bool
    solved: bool
    statement: str = Field(description="Markdown")
    learn: str = Field(description="Markdown; only a preview when `locked`")
    learn_truncated: bool
    starter_code: str | None = Field(description="The starting solution.py; null when locked")
    reference_solution: str | None = Field(
        description="Only for premium members with an accepted submission on this problem"
    )
    entry_point: str
    examples: list[Example]
    runtime: dict[str, str] = Field(description="What the sandbox runs, e.g. python and torch versions")
    related: list[RelatedProblem]
    track: ProblemTrack | None = Field(default=None, description="Its place in its track (null: none)")
    hint_count: int = Field(default=0, description="How many hints it has (see /problems/{slug}/hints)")
    rules: list[ProblemRule] = Field(
        default_factory=list,
        description="The statement's rules (its Rules section): how the code must work, each checked",
    )


class SubmissionIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"problem": "add-tensors", "code": "def add(a, b):\n    return a + b\n", "mode": "submit"}
            ]
        },
    )
    problem: str = Field(min_length=1, max_length=80, description="The problem's slug")
    code: str = Field(description="The full source of solution.py (size limit: see 413)")
    mode: Literal["run", "submit", "custom"] = Field(
        default="submit",
        description="run: public cases only; submit: every case; "
        "custom: your `input`, judged against the reference's output for it",
    )
    input: dict[str, Any] | None = Field(
        default=None,
        description='custom only: the arguments by name, e.g. {"x": {"tensor": [[1, 2]]}, "k": 2}',
    )
    input_text: str | None = Field(
        default=None,
        max_length=1_000_000,
        description="custom only, instead of `input`: the arguments as typed, JSON or Python literals "
        "(read as data, never executed), e.g. \"{'x': {'tensor': [[1, 2]]}, 'k': 2}\"",
    )

    @model_validator(mode="after")
    def _one_input(self) -> SubmissionIn:
        if self.input is not None and self.input_text is not None:
            raise ValueError("give the custom input once: `input` or `input_text`, not both")
        return self


def model_response(status: int, model: type[BaseModel], description: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI entry of a second success status (the first is the route's ``response_model``)."""
    return {status: {"model": model, "description": description}}


class TrackProblem(BaseModel):
    slug: str
    title: str
    difficulty: Difficulty
    premium: bool
    locked: bool
    mark: Literal["solved", "attempted"] | None = Field(
        description="The caller's progress on it (null when untouched or anonymous)"
    )


class TrackProgress(BaseModel):
    solved: int = Field(description="Problems with an accepted submission")
    attempted: int = Field(description="Problems with any submission, solved ones included")
    total: int
    next_problem: str | None = Field(
        description="The slug to continue with: the first unsolved problem (null when all are solved)"
    )


class TrackItem(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "slug": "pytorch-advanced",
                    "title": "PyTorch Advanced",
                    "description": "Hooks, parameter groups and optimisers written by hand.",
                    "position": 9,
                    "problem_count": 8,
                    "progress": {
                        "solved": 2,
                        "attempted": 3,
                        "total": 8,
                        "next_problem": "modify-activations-hook",
                    },
                }
            ]
        }
    )
    slug: str
    title: str = Field(description="What a problem's `category` names")
    description: str
    position: int = Field(description="The track's place among the tracks (1 first)")
    problem_count: int
    progress: TrackProgress | None = Field(description="Only with a token")


class TrackList(BaseModel):
    items: list[TrackItem]


class TrackOut(TrackItem):
    problems: list[TrackProblem] = Field(description="In the track's order")


class HintsOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"revealed": ["Hook `model[0]`."], "total": 3, "remaining": 2, "locked": False}]
        }
    )
    revealed: list[str] = Field(description="The hints revealed so far, in order (Markdown)")
    total: int = Field(description="How many hints the problem has")
    remaining: int = Field(description="How many more can be revealed (0 when locked)")
    locked: bool = Field(description="A Premium problem the caller may not work on: nothing is revealed")


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route can answer."""
    descriptions = {
        400: "Bad request",
        401: "Missing, malformed, unknown, revoked or expired token (`invalid_token`)",
        403: "Not allowed, e.g. `premium_required`; `insufficient_scope`: the token lacks the route's scope",
        404: "No such object (other people's objects are answered like missing ones)",
        409: "Conflict, e.g. an Idempotency-Key reused with a different body",
        413: "Code larger than the configured limit",
        422: "Malformed JSON or invalid fields (`invalid_input`)",
        429: "Rate limited; see the Retry-After header",
    }
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {"model": ErrorOut, "description": descriptions[status]}
        if status == 429:
            entry["headers"] = {
                "Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}
            }
        out[status] = entry
    return out
