"""``torchdrill submissions rejudge ID…``: judge stored submissions again (operators).

For submissions that ended in ``internal_error`` (the platform failed, not the learner) or were
judged by tests that have since been fixed. Each one is put back in the queue and judged against
the problem version it was made for. Embedded (no ``TORCHDRILL_BROKER_URL``): judged here, in this
process's sandbox, and the new verdict printed. Scaled out: published to the runner workers, and
the trusted recorder stores the verdict as for any submission.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer
from torchdrill.output import echo

from app import analytics
from app.kit.db import Database
from app.kit.settings import Settings
from app.submissions import repository
from app.submissions.judging import judge_submission, reopen_for_rejudge

app = typer.Typer(help="Stored submissions (acts on TORCHDRILL_DATABASE_URL directly).", no_args_is_help=True)


@app.command("rejudge")
def rejudge(ids: Annotated[list[int], typer.Argument(help="submission ids")]) -> None:
    """Judge submissions again; exit 1 if one of them could not be re-judged."""
    settings = Settings()
    db = Database(settings.database_url)
    analytics.install()  # a reopened or re-judged verdict keeps course analytics in step
    failed = False
    publish: Callable[[int], bool] | None = None
    if settings.broker_url:
        from app.kit.broker import make_redis
        from app.scaleout.celery_dispatch import Publisher, make_celery

        publisher = Publisher(db, settings, make_celery(settings), make_redis(settings))

        def publish(submission_id: int) -> bool:
            # The runners skip a job whose verdict is known: forget it, and the deliveries so far.
            wire = settings.wire
            publisher.client.delete(wire.done_key(submission_id), wire.deliveries_key(submission_id))
            return publisher.publish(submission_id, force=True)

    runner = None
    for submission_id in ids:
        previous = reopen_for_rejudge(db, submission_id)
        if previous is None:
            echo(f"#{submission_id}: not found or not finished; left as it is", err=True)
            failed = True
            continue
        if publish is not None:
            published = publish(submission_id)
            echo(f"#{submission_id}: was {previous}; {'sent to the runners' if published else 'queued'}")
            continue
        if runner is None:
            from runner import get_runner

            runner = get_runner()
        judge_submission(db, runner, submission_id)
        with db.sessionmaker() as session:
            submission = repository.get(session, submission_id)
        now = submission.verdict if submission is not None else "?"
        echo(f"#{submission_id}: {previous} -> {now}")
    db.dispose()
    if failed:
        raise typer.Exit(1)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="submissions")
