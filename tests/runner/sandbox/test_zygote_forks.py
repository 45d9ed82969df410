"""What the zygote sets once so its forks start with less work (runner.sandbox.zygote): the logging
handler locks children need not re-create."""

from __future__ import annotations

import io
import logging
import threading
from typing import Any

from runner.sandbox import forkhooks
from tests.runner.processes import in_fork

LOGGER = "tests.zygote_forks"


def _registry() -> Any:
    return getattr(logging, "_at_fork_reinit_lock_weakset")  # noqa: B009 - logging's private registry


def test_with_one_thread_children_keep_logging_through_the_parent_s_handlers() -> None:
    def zygote_like(_records: int) -> dict[str, Any]:
        # A forked child has one thread, as the zygote has: the test process may have more.
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        logger = logging.getLogger(LOGGER)
        logger.addHandler(handler)
        logger.propagate = False
        cleared = forkhooks.skip_handler_lock_reinit()

        def child(_records: int) -> str:
            logger.warning("from the child")
            return stream.getvalue()

        text, _ = in_fork(child)
        return {"cleared": cleared, "registered": handler in _registry(), "text": text}

    outcome, _ = in_fork(zygote_like)
    assert outcome == {"cleared": True, "registered": False, "text": "from the child\n"}


def test_with_another_thread_running_nothing_changes() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger(LOGGER)
    logger.addHandler(handler)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not forkhooks.skip_handler_lock_reinit()
        assert handler in _registry()
    finally:
        release.set()
        other.join()
        logger.removeHandler(handler)
        handler.close()
