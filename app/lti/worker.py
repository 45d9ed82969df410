"""The grade passback's background sweep in the web process.

It hears every recorded verdict after its commit (``ResultWaiter.listen`` — embedded judge threads
and, when scaled out, the finished-announcement listener alike), marks the student's linked line
items, makes any LMS gradebook column a launch could not, and sends what is due at once; it
also wakes every ``SWEEP_S`` for retries whose back-off has passed. ``torchdrill lti sync`` does the
same sweep once from a shell.
"""

from __future__ import annotations

import logging
import threading
from collections import deque

from app.kit.db import Database
from app.lti import keys, line_items, passback
from app.submissions.models import Submission

log = logging.getLogger(__name__)

SWEEP_S = 30.0


class PassbackWorker:
    def __init__(self, db: Database, secret_key: str, sweep_s: float = SWEEP_S) -> None:
        self.db, self.secret_key, self.sweep_s = db, secret_key, sweep_s
        self._heard: deque[tuple[int, int, bool]] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def on_verdict(self, submission_id: int, finished: Submission | None) -> None:
        """Called in the judge's thread after the verdict's commit: note it, never block."""
        if finished is not None:
            if finished.mode != "submit" or finished.is_copy:
                return
            self._heard.append((finished.user_id, finished.problem_id, True))
        else:  # another process's verdict: looked up by the worker
            self._heard.append((submission_id, 0, False))
        self._wake.set()

    def wake(self) -> None:
        self._wake.set()

    def start(self) -> None:
        try:
            keys.ensure(self.db, self.secret_key)
        except Exception:  # no schema yet (not migrated): the first launch makes the key instead
            log.exception("the LTI signing key could not be made at start-up")
        self._thread = threading.Thread(target=self._run, name="lti-passback", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=15)

    def run_once(self) -> None:
        heard = []
        while self._heard:
            heard.append(self._heard.popleft())
        if heard:
            with self.db.transaction() as session:
                for first, second, known in heard:
                    if not known:
                        row = session.get(Submission, first)
                        if row is None or row.mode != "submit" or row.is_copy:
                            continue
                        first, second = row.user_id, row.problem_id
                    passback.mark_for_work(session, first, second)
        line_items.create_due(self.db, self.secret_key)  # columns a launch could not make
        passback.send_due(self.db, self.secret_key)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.sweep_s)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self.run_once()
            except Exception:  # the next wake-up tries again
                log.exception("LTI grade passback sweep failed")
