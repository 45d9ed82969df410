"""Analytics tests reuse the API accounts and the app's fixtures."""

from tests.app.api_v1.conftest import make_account

__all__ = ["make_account"]
