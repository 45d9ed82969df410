"""Validation as the app runs it: the runner's one implementation plus the app-side checks.

``runner.format.validate.validate_problem`` does everything that needs the sandbox (reference passes,
expectations, starter refused, mutants rejected, statement examples). The runner never imports
the app, so the two checks that need the app's Markdown renderer are added here: every formula
renders, and no raw HTML the sanitizer would silently drop; and the editorial, shown as user text,
obeys the rules of user text (:func:`app.kit.user_text.editorial_refusal`). The web editor, the API, the
``torchdrill problems validate`` command and CI all go through :func:`validate_files`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from app.kit.markdown import render_markdown
from app.kit.runner import JudgeRunner
from app.kit.user_text import editorial_refusal
from runner.format.problem import (
    EDITORIAL_FILE,
    ProblemFiles,
    ProblemFormatError,
    build_problem,
)
from runner.format.validate import validate_problem
from runner.format.validation_report import Finding, ValidationReport

MARKDOWN_FILES = (("statement.md", "statement"), ("learn.md", "learn"))
MATH_ERROR_RE = re.compile(r'<code class="math-error"[^>]*>(.*?)</code>', re.S)
DROPPED_HTML_RE = re.compile(r"<\s*(script|style|iframe|object|embed|form|link|meta)\b", re.I)


def _line_of(source: str, needle: str) -> int | None:
    index = source.find(needle)
    return source[:index].count("\n") + 1 if index >= 0 else None


def markdown_findings(problem: ProblemFiles) -> tuple[list[Finding], list[Finding]]:
    """(errors, warnings) about how statement.md and learn.md render on the site, and the
    editorial's text (:func:`app.kit.user_text.editorial_refusal`)."""
    errors: list[Finding] = []
    warnings: list[Finding] = []
    refused = editorial_refusal(problem.editorial)
    if refused is not None:
        errors.append(Finding(EDITORIAL_FILE, refused, _line_of(problem.editorial, "\x00")))
    for file, attr in MARKDOWN_FILES:
        source: str = getattr(problem, attr)
        if not source.strip():
            errors.append(Finding(file, "is empty", None, f"write the {attr} learners read"))
            continue
        try:
            rendered = render_markdown(source)
        except Exception as exc:  # the renderer is a third-party parser: report, never crash validation
            errors.append(Finding(file, f"Markdown does not render: {exc}", None, "simplify the markup"))
            continue
        for match in MATH_ERROR_RE.finditer(rendered):
            formula = html.unescape(match.group(1))
            errors.append(
                Finding(
                    file,
                    f"the formula ${formula}$ does not render",
                    _line_of(source, formula),
                    "fix the LaTeX (balanced braces, known commands) or put it in `code`",
                )
            )
        for match in DROPPED_HTML_RE.finditer(source):
            warnings.append(
                Finding(
                    file,
                    f"<{match.group(1)}> is removed when the page is rendered",
                    _line_of(source, match.group(0)),
                    "use Markdown instead of raw HTML",
                )
            )
    return errors, warnings


def format_report(slug: str, exc: ProblemFormatError) -> ValidationReport:
    """A report for a folder that cannot even be read as a problem (format error)."""
    report = ValidationReport(slug=slug)
    report.errors.append(
        Finding(exc.file or "problem", exc.message, exc.line, "see docs/authoring.md for the folder format")
    )
    return report


def validate_files(
    problem: ProblemFiles, runner: JudgeRunner, tracks: Sequence[str] | None = None
) -> ValidationReport:
    """Validate a problem by running it in the sandbox, then check its Markdown renders.

    ``tracks``: the track titles its category must name (None: not checked, e.g. a lone folder).
    """
    report = validate_problem(problem, runner, tracks)
    errors, warnings = markdown_findings(problem)
    report.errors += errors
    report.warnings += warnings
    return report


def validate_folder_files(
    slug: str, files: dict[str, str], runner: JudgeRunner, tracks: Sequence[str] | None = None
) -> ValidationReport:
    """Build the problem from path -> text (editor, zip, API) and validate it; format errors too."""
    try:
        problem = build_problem(slug, files)
    except ProblemFormatError as exc:
        return format_report(slug, exc)
    return validate_files(problem, runner, tracks)
