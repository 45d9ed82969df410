"""The one view of a solution, a comment and a problem's solutions state: API, pages and CLI."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from app.kit.user_text import render_user_markdown
from app.solutions.models import Solution, SolutionComment


def author_name(user_id: int) -> str:
    """How an author is shown to others: accounts have no public name, and emails stay private."""
    return f"Learner #{user_id}"


class SolutionView(BaseModel):
    id: int
    problem: str = Field(description="The problem's slug")
    author: str = Field(description="The author as shown to others (emails are never shown)")
    mine: bool = Field(description="Whether the reader wrote it")
    title: str
    code: str = Field(description="The published code (a copy of the accepted submission)")
    write_up: str = Field(description="The write-up's Markdown source")
    write_up_html: str = Field(description="The write-up rendered and sanitised (safe to insert as HTML)")
    tags: list[str] = Field(description="The approach tags the author chose")
    votes: int
    voted: bool = Field(description="Whether the reader up-voted it")
    comments: int = Field(description="How many comments it has (hidden and deleted ones not counted)")
    created_at: datetime
    hidden: bool = Field(description="Hidden by a moderator (only its author still sees it)")
    url: str
    page_url: str

    @classmethod
    def of(
        cls, solution: Solution, slug: str, tags: list[str], *, reader_id: int, voted: bool
    ) -> SolutionView:
        return cls(
            id=solution.id,
            problem=slug,
            author=author_name(solution.author_id),
            mine=solution.author_id == reader_id,
            title=solution.title,
            code=solution.code,
            write_up=solution.write_up,
            write_up_html=render_user_markdown(solution.write_up),
            tags=tags,
            votes=solution.votes,
            voted=voted,
            comments=solution.comments,
            created_at=solution.created_at,
            hidden=solution.hidden_at is not None,
            url=f"/api/v1/solutions/{solution.id}",
            page_url=f"/solutions/{solution.id}",
        )


class SolutionList(BaseModel):
    items: list[SolutionView]
    next: str | None = Field(description="The URL of the next page, or null on the last")


class CommentView(BaseModel):
    id: int
    solution_id: int
    author: str
    mine: bool
    body: str = Field(description="The comment's Markdown source")
    body_html: str = Field(description="The comment rendered and sanitised")
    created_at: datetime
    hidden: bool

    @classmethod
    def of(cls, comment: SolutionComment, *, reader_id: int) -> CommentView:
        return cls(
            id=comment.id,
            solution_id=comment.solution_id,
            author=author_name(comment.author_id),
            mine=comment.author_id == reader_id,
            body=comment.body,
            body_html=render_user_markdown(comment.body),
            created_at=comment.created_at,
            hidden=comment.hidden_at is not None,
        )


class CommentList(BaseModel):
    items: list[CommentView]
    next: str | None


class SolutionsState(BaseModel):
    """Whether the reader sees a problem's solutions, and why."""

    problem: str
    open: bool
    reason: str = Field(description="owner, solved, gave_up, locked (solve it or give up) or held")
    held_until: datetime | None = Field(
        description="When reason is held: when the course assignment closes for you and solutions open"
    )
    gave_up_at: datetime | None
    editorial: bool = Field(description="Whether the problem has an editorial")


class EditorialView(BaseModel):
    problem: str
    body: str = Field(description="The editorial's Markdown source")
    body_html: str
