"""Request and response bodies of API v1 (they are also its OpenAPI documentation)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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


class TokenOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"access_token": "td_3q2x…", "token_type": "bearer"}]}
    )
    access_token: str = Field(description="Shown once; send it as `Authorization: Bearer <token>`")
    token_type: Literal["bearer"] = "bearer"


class TokenInfo(BaseModel):
    id: int
    name: str
    prefix: str = Field(description="The first characters of the token, to recognise it")
    created_at: datetime
    last_used_at: datetime | None


class TokenList(BaseModel):
    items: list[TokenInfo]


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
    mode: Literal["run", "submit"] = Field(
        default="submit", description="run: public cases only; submit: every case"
    )


def model_response(status: int, model: type[BaseModel], description: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI entry of a second success status (the first is the route's ``response_model``)."""
    return {status: {"model": model, "description": description}}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route can answer."""
    descriptions = {
        400: "Bad request",
        401: "Missing, malformed, unknown or revoked token (`invalid_token`)",
        403: "Not allowed, e.g. `premium_required`",
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
