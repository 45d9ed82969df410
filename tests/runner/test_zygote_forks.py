"""What the zygote sets once so its forks start with less work (runner.zygote): the logging
handler locks children need not re-create."""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Iterator

import pytest

from runner import forked, zygote


@pytest.fixture
def handler() -> Iterator[logging.Handler]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("tests.zygote_forks")
    logger.addHandler(handler)
    logger.propagate = False
    yield handler
    logger.removeHandler(handler)
    handler.close()


def test_with_one_thread_children_keep_logging_through_the_parent_s_handlers(
    handler: logging.Handler,
) -> None:
    registry: set[object] = getattr(logging, "_at_fork_reinit_lock_weakset")  # noqa: B009
    saved = set(registry)
    try:
        if threading.active_count() != 1:
            pytest.skip("another thread runs in this test process")
        assert zygote.skip_handler_lock_reinit()
        assert handler not in registry

        def child(_records: int) -> str:
            logging.getLogger("tests.zygote_forks").warning("from the child")
            stream = handler.stream  # type: ignore[attr-defined]
            return str(stream.getvalue())

        text, _ = forked.in_fork(child)
        assert text == "from the child\n"
    finally:
        registry.update(saved)


def test_with_another_thread_running_nothing_changes(handler: logging.Handler) -> None:
    registry: set[object] = getattr(logging, "_at_fork_reinit_lock_weakset")  # noqa: B009
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not zygote.skip_handler_lock_reinit()
        assert handler in registry
    finally:
        release.set()
        other.join()
