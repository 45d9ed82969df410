"""What the zygote sets once so its forks start with less work (runner.sandbox.zygote): the logging
handler locks children need not re-create."""

from __future__ import annotations

import io
import logging
import threading
from typing import Any

from bench import forked
from runner.sandbox import forkhooks

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

        text, _ = forked.in_fork(child)
        return {"cleared": cleared, "registered": handler in _registry(), "text": text}

    outcome, _ = forked.in_fork(zygote_like)
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


def test_threading_s_after_fork_hook_is_skipped_while_forking_and_given_back() -> None:
    import threading

    from runner.sandbox.forkhooks import ThreadingAfterFork

    original = threading._after_fork.__code__  # type: ignore[attr-defined]

    def zygote_like(_records: int) -> dict[str, Any]:
        skipping = ThreadingAfterFork()
        skipped = skipping.skip()

        def spare(_records: int) -> dict[str, Any]:
            in_force = threading._after_fork.__code__.co_name  # type: ignore[attr-defined]
            skipping.restore()
            ran: list[str] = []
            worker = threading.Thread(target=lambda: ran.append(threading.current_thread().name), name="w")
            worker.start()
            worker.join()
            return {
                "in_force": in_force,
                "restored": threading._after_fork.__code__ is original,  # type: ignore[attr-defined]
                "main": threading.current_thread() is threading.main_thread(),
                "ran": ran,
                "threads": threading.active_count(),
            }

        outcome, _ = forked.in_fork(spare)
        return {"skipped": skipped, **outcome}

    outcome, _ = forked.in_fork(zygote_like)
    assert outcome == {
        "skipped": True,
        "in_force": "_no_after_fork",
        "restored": True,
        "main": True,
        "ran": ["w"],
        "threads": 1,
    }
    assert threading._after_fork.__code__ is original  # type: ignore[attr-defined]  # this process: untouched


def test_threading_s_hook_stays_with_another_thread_running() -> None:
    import threading

    from runner.sandbox.forkhooks import ThreadingAfterFork

    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not ThreadingAfterFork().skip()
        assert threading._after_fork.__code__.co_name == "_after_fork"  # type: ignore[attr-defined]
    finally:
        release.set()
        other.join()
