"""Every field the API returns is documented: docs/api.md's "Response fields" table against the
OpenAPI response schemas of ``/api/v1``, both ways."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

API_MD = Path(__file__).resolve().parents[3] / "docs" / "api.md"


def documented() -> dict[str, set[str]]:
    """``{schema: fields}`` from the table under "## Response fields"."""
    text = API_MD.read_text()
    section = text.split("## Response fields\n", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for row in re.findall(r"^\| `(\w+)` \| ([^|]*) \|", section, re.M):
        name, fields = row
        assert name not in table, f"{name} is listed twice"
        table[name] = set(re.findall(r"`(\w+)`", fields))
    return table


def returned(spec: dict[str, Any]) -> dict[str, set[str]]:
    """``{schema: fields}`` of every object schema reachable from a 2xx answer of ``/api/v1``."""
    schemas = spec["components"]["schemas"]
    seen: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.rsplit("/", 1)[-1]
                if name not in seen:
                    seen.add(name)
                    walk(schemas[name])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path, operations in spec["paths"].items():
        assert path.startswith("/api/v1/"), path
        for operation in operations.values():
            for status, answer in operation.get("responses", {}).items():
                if status.startswith("2"):
                    walk(answer)
    return {name: set(schemas[name]["properties"]) for name in seen if "properties" in schemas[name]}


def test_every_returned_field_is_documented_and_every_documented_one_returned(app: FastAPI) -> None:
    spec = TestClient(app).get("/api/v1/openapi.json").json()
    api, docs = returned(spec), documented()
    assert len(api) >= 20  # the walk found the answers
    assert sorted(set(api) - set(docs)) == [], "schemas the API returns that docs/api.md does not list"
    assert sorted(set(docs) - set(api)) == [], "schemas docs/api.md lists that the API does not return"
    undocumented = {name: sorted(api[name] - docs[name]) for name in api if api[name] - docs[name]}
    assert undocumented == {}, "fields the API returns that docs/api.md does not list"
    stale = {name: sorted(docs[name] - api[name]) for name in docs if docs[name] - api[name]}
    assert stale == {}, "fields docs/api.md lists that the API does not return"
