"""A hook on each job's way through the host, which the product leaves empty.

``Sandbox.watch`` (``Runner.watch_jobs``) is None in the product: every job is told to
:data:`UNWATCHED`, whose methods do nothing. A tool outside the product fills it with a factory
of :class:`JobWatch` objects, one per job: the benchmarks' breakdown of a verdict's time
(``bench/jobwatch.py``: the stages' times, the job's CPU and page faults read from its cgroup),
a test of the pool's policy (which spares were asked for their whole warm-up). What is measured,
and how, lives there; the sandbox only says what happened, on the job's own thread.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.sandbox.cgroups import JobCgroup


class JobWatch:
    """Told of one job's stages on the host, in order. Every method here does nothing."""

    # True: the job's result channel is read at each record as it comes (a wake-up per record,
    # which judging does not pay: it reads them in batches, runner.sandbox.channel.collect), so
    # that :meth:`stage` is told of each record the moment it reaches the host.
    every_record: bool = False

    def spare_taken(self, warm: bool) -> None:
        """The job took its spare; ``warm``: whether that spare was asked for its whole warm-up
        (not when jobs filled every CPU as it was asked for: ``Sandbox._prepare``)."""

    def stage(self, name: str) -> None:
        """A stage of the job ended: ``take spare``, ``cgroup limits``, ``payload written``,
        ``hand-over``, ``spare woken``, ``code cleared`` (where the job's code was checked: its
        word written), ``output read``, ``teardown handed off``; with
        :attr:`every_record`, each record's type as it reached the host (``start``, ``cases``,
        ``event``, ``case``, ``done``, …)."""

    def running(self, group: JobCgroup) -> None:
        """The job's spare has its pipes and is waking; ``group`` is the job's cgroup."""

    def finished(self, group: JobCgroup) -> None:
        """The job's output has been read (or a limit cut it short), before its teardown."""


# What every job is told of in the product: nothing is kept.
UNWATCHED = JobWatch()

WatchFactory = Callable[[], JobWatch]
