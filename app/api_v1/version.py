"""``/api/v1/version``: the API's revision and the oldest light client (``clients/python``) it serves.

``/api/v1`` grows by revisions that only add; a client checks this answer before its first request
and says clearly whether the server is older than it supports or too new for it (the client's
``torchdrill/version.py``). Revision 1: this endpoint, and a custom run's ``input_text``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header
from pydantic import BaseModel, Field

API_REVISION = 1
OLDEST_CLIENT = "0.1.0"

router = APIRouter(tags=["version"])


class VersionOut(BaseModel):
    api: str = Field(description="The API's major version, the path's `v1`")
    revision: int = Field(description="Grows with every addition to `/api/v1`")
    oldest_client: str = Field(description="The oldest torchdrill-client version this server serves")
    client: str | None = Field(description="The `Torchdrill-Client` version the caller sent, if any")


@router.get("/version", response_model=VersionOut)
def api_version(
    client: Annotated[
        str | None, Header(alias="Torchdrill-Client", max_length=40, description="The client's version")
    ] = None,
) -> VersionOut:
    """Which revision of `/api/v1` this server speaks; no token needed."""
    return VersionOut(api="v1", revision=API_REVISION, oldest_client=OLDEST_CLIENT, client=client)
