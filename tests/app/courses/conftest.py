"""Course tests reuse the API accounts (token clients) and the live server of other test folders."""

from tests.app.api_v1.conftest import make_account
from tests.app.cli.conftest import live_server

__all__ = ["live_server", "make_account"]
