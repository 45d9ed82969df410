"""A problem's editorial (``editorial.md`` in its folder and the authoring form): approaches,
complexity, pitfalls. It opens by the solutions' unlock rule (:mod:`app.solutions.access`), and is
rendered as user text: the author may be any instructor, so it gets the strictest pipeline."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.kit.errors import NotFound
from app.kit.user_text import render_user_markdown
from app.problems import service as problems
from app.problems.models import Problem
from app.solutions import repository, service
from app.solutions.models import HiddenEditorial
from app.solutions.views import EditorialView


def source(session: Session, problem: Problem) -> str:
    """The live version's editorial; "" when there is none or a moderator hid it."""
    if repository.editorial_hidden(session, problem.id) is not None:
        return ""
    version = problems.current_version(session, problem)
    return dict(version.files).get("editorial.md", "")


def read(session: Session, user: User, slug: str, now: datetime) -> EditorialView:
    found = service.open_problem(session, slug, user, now)
    body = source(session, found.problem)
    if not body.strip():
        raise NotFound(f"{found.problem.slug!r} has no editorial.")
    return view(found.problem, body)


def view(problem: Problem, body: str) -> EditorialView:
    return EditorialView(problem=problem.slug, body=body, body_html=render_user_markdown(body))


def set_hidden(session: Session, problem_id: int, hidden: bool, now: datetime) -> None:
    row = repository.editorial_hidden(session, problem_id)
    if hidden and row is None:
        repository.add(session, HiddenEditorial(problem_id=problem_id, hidden_at=now))
    elif not hidden and row is not None:
        session.delete(row)
        session.flush()
