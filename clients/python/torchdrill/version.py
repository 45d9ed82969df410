"""The client's version and the ``/api/v1`` revisions it speaks (read by ``pyproject.toml`` too).

``/api/v1`` grows by revisions that only add (a field, an endpoint); a server answers its revision
and the oldest client it still serves at ``GET /api/v1/version``. This client needs at least
:data:`MIN_API_REVISION` (revision 1 added ``/api/v1/version`` and ``input_text``).
"""

__version__ = "0.1.0"
API = "v1"
MIN_API_REVISION = 1


def describe() -> str:
    """``torchdrill-client 0.1.0 (API v1 revision 1+)``."""
    return f"torchdrill-client {__version__} (API {API} revision {MIN_API_REVISION}+)"
