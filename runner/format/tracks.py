"""The learning paths of a problem bank: ``problems/tracks.toml``, the one home of the track list.

::

    [[track]]
    slug = "tensors"                       # the track's address: /tracks/tensors
    title = "Tensors & Broadcasting"       # what a problem's `category` names, exactly
    order = 1                              # position among the tracks
    description = "One paragraph ..."

A problem belongs to the track its ``category`` names; its ``order`` is its position in the track.
Validation and the app's importer both refuse a category that names no track. Lives in the runner
(which never imports the app) so that ``validate`` can check a bank without a database.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from runner.format.fields import one_line_error
from runner.format.problem import ProblemFormatError

TRACKS_FILE = "tracks.toml"
TRACK_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,59}$")
MAX_TITLE = 100  # the problems.category column
MAX_DESCRIPTION = 2000


@dataclass(frozen=True)
class TrackSpec:
    slug: str
    title: str
    order: int
    description: str


def parse_tracks(source: str) -> list[TrackSpec]:
    """The tracks of a ``tracks.toml``, sorted by ``order``; a clear error for anything malformed."""
    try:
        data = tomllib.loads(source)
    except tomllib.TOMLDecodeError as exc:
        raise ProblemFormatError(f"invalid TOML: {exc}", TRACKS_FILE) from None
    raw = data.get("track")
    if not isinstance(raw, list) or not raw or set(data) != {"track"}:
        raise ProblemFormatError("expected one or more [[track]] tables and nothing else", TRACKS_FILE)
    tracks: list[TrackSpec] = []
    for i, entry in enumerate(raw, 1):
        where = f"track {i}"
        if not isinstance(entry, dict) or set(entry) != {"slug", "title", "order", "description"}:
            raise ProblemFormatError(
                f"{where}: needs exactly slug, title, order and description", TRACKS_FILE
            )
        slug, title, order, description = (entry[k] for k in ("slug", "title", "order", "description"))
        if not isinstance(slug, str) or not TRACK_SLUG_RE.match(slug):
            raise ProblemFormatError(
                f"{where}: slug must be lowercase letters, digits and dashes", TRACKS_FILE
            )
        if not isinstance(title, str) or not title.strip() or len(title.strip()) > MAX_TITLE:
            raise ProblemFormatError(f"{where}: title must be 1 to {MAX_TITLE} characters", TRACKS_FILE)
        error = one_line_error(f"{where}: title", title.strip())
        if error is not None:
            raise ProblemFormatError(error, TRACKS_FILE)
        if isinstance(order, bool) or not isinstance(order, int) or not 0 < order <= 1000:
            raise ProblemFormatError(f"{where}: order must be an integer in [1, 1000]", TRACKS_FILE)
        if not isinstance(description, str) or not 0 < len(description.strip()) <= MAX_DESCRIPTION:
            raise ProblemFormatError(
                f"{where}: description must be 1 to {MAX_DESCRIPTION} characters", TRACKS_FILE
            )
        tracks.append(TrackSpec(slug, title.strip(), order, " ".join(description.split())))
    for attr in ("slug", "title", "order"):
        values = [getattr(t, attr) for t in tracks]
        duplicates = sorted({str(v) for v in values if values.count(v) > 1})
        if duplicates:
            raise ProblemFormatError(f"duplicate track {attr}: {', '.join(duplicates)}", TRACKS_FILE)
    return sorted(tracks, key=lambda t: t.order)


def load_tracks(bank: str | Path) -> list[TrackSpec] | None:
    """The tracks of the bank folder ``bank``, or None when it has no ``tracks.toml``."""
    path = Path(bank) / TRACKS_FILE
    if path.is_symlink():
        raise ProblemFormatError("symlinks are not allowed", TRACKS_FILE)
    if not path.is_file():
        return None
    return parse_tracks(path.read_text(encoding="utf-8"))


def unknown_category(category: str, titles: Sequence[str]) -> str | None:
    """Why ``category`` is refused (it names no track), or None when it names one."""
    if category in titles:
        return None
    return f"category {category!r} is not a track; use one of: " + ", ".join(repr(t) for t in titles)
