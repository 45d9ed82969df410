"""A thin httpx client for ``/api/v1``: the API's error shape as clear messages, and the version check.

Every request says who is asking (``User-Agent: torchdrill-client/VERSION`` and
``Torchdrill-Client: VERSION``); before the first request of a command the client asks the server
for its revision (``GET /api/v1/version``) and stops with a clear message when the two cannot work
together: a server older than :data:`~torchdrill.version.MIN_API_REVISION`, or one that no longer
serves this client's version (``oldest_client``).
"""

from __future__ import annotations

from typing import Any

import httpx

from torchdrill import version
from torchdrill.config import load_config
from torchdrill.errors import ClientError

UPGRADE = "pip install --upgrade torchdrill-client"


def _parts(text: str) -> tuple[int, ...]:
    """``"0.10.2"`` -> ``(0, 10, 2)``; anything after the numbers (``rc1``) is ignored."""
    out: list[int] = []
    for part in text.split("."):
        digits = "".join(c for c in part if c.isdigit()) if part[:1].isdigit() else ""
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


def error_code(response: httpx.Response) -> str | None:
    """The ``error`` of an error answer, if it has the API's error shape."""
    try:
        body = response.json()
    except ValueError:
        return None
    return str(body.get("error")) if isinstance(body, dict) and body.get("error") else None


def error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
        return f"{body.get('detail') or body.get('error')} ({response.status_code} {body.get('error')})"
    except (ValueError, AttributeError):
        return f"the server answered {response.status_code}"


class Api:
    """The server at ``server``, with ``token`` when given."""

    def __init__(
        self, server: str, token: str | None = None, transport: httpx.BaseTransport | None = None
    ) -> None:
        headers = {
            "User-Agent": f"torchdrill-client/{version.__version__}",
            "Torchdrill-Client": version.__version__,
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.server = server.rstrip("/")
        self.http = httpx.Client(base_url=self.server, headers=headers, timeout=60.0, transport=transport)
        self.checked = False

    def request(
        self, method: str, url: str, *, passing: tuple[str, ...] = (), **kwargs: Any
    ) -> httpx.Response:
        """The response; an error answer raises :class:`ClientError`, unless its code is in ``passing``."""
        if not self.checked:
            self.check_version()
        return self._send(method, url, passing=passing, **kwargs)

    def _send(self, method: str, url: str, *, passing: tuple[str, ...] = (), **kwargs: Any) -> httpx.Response:
        try:
            response = self.http.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach {self.server}: {exc}") from None
        if response.status_code >= 400:
            if passing and error_code(response) in passing:
                return response
            raise ClientError(error_detail(response), error=error_code(response))
        return response

    def check_version(self) -> dict[str, Any]:
        """The server's ``/api/v1/version``; a :class:`ClientError` when this client cannot use it."""
        try:
            response = self.http.get(f"/api/{version.API}/version")
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach {self.server}: {exc}") from None
        ours = version.describe()
        if response.status_code == 404:
            raise ClientError(
                f"the server at {self.server} is older than {ours} supports: it does not answer "
                f"/api/{version.API}/version. Ask its operator to upgrade it, or use the `torchdrill` "
                "CLI that comes with that server."
            )
        if response.status_code >= 400:
            raise ClientError(f"{self.server} /api/{version.API}/version: {error_detail(response)}")
        try:
            body = response.json()
            revision = int(body["revision"])
            oldest = str(body.get("oldest_client") or "0")
        except (ValueError, KeyError, TypeError):
            raise ClientError(f"{self.server} does not look like a Torchdrill server") from None
        if revision < version.MIN_API_REVISION:
            raise ClientError(
                f"the server at {self.server} is older than {ours} supports: it speaks API "
                f"{version.API} revision {revision}. Ask its operator to upgrade it."
            )
        if _parts(version.__version__) < _parts(oldest):
            raise ClientError(
                f"the server at {self.server} is newer than {ours} supports: it needs "
                f"torchdrill-client {oldest} or later. Upgrade: {UPGRADE}"
            )
        self.checked = True
        return dict(body)


def client_from_config() -> Api:
    config = load_config()
    return Api(config["server"], config["token"])
