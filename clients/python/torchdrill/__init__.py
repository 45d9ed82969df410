"""Torchdrill's light client: the learner commands and the Jupyter extension (``%load_ext torchdrill``).

Nothing here imports torch or the server: code is sent to a Torchdrill server's ``/api/v1`` and the
results it answers are shown.
"""

from __future__ import annotations

from typing import Any

from torchdrill.version import __version__

__all__ = ["__version__", "load_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext torchdrill``: registers the ``%torchdrill`` / ``%%torchdrill`` magic."""
    from torchdrill.jupyter import register

    register(ipython)
