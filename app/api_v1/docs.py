"""The v1 OpenAPI document and a documentation page rendered from it on the server.

No CDN and no JavaScript: the page is plain HTML styled by the app's own CSS (the CSP allows
nothing else anyway).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.routing import iter_route_contexts

from app.api_v1.schemas import ErrorOut
from app.kit.web import render

PREFIX = "/api/v1"
DESCRIPTION = """\
Practice PyTorch problems from scripts and the `torchdrill` command line.

Authenticate with a personal access token: `Authorization: Bearer <token>` (create one with
`POST /api/v1/auth/token` or on the account page). Every error is
`{"error": "<code>", "detail": "<message>"}` with a matching HTTP status.
"""

router = APIRouter(include_in_schema=False)


def v1_openapi(request: Request) -> dict[str, Any]:
    """The OpenAPI document of the v1 routes only (built once per app)."""
    cached: dict[str, Any] | None = getattr(request.app.state, "api_v1_openapi", None)
    if cached is None:
        # Included routers are kept as contexts in this FastAPI; iterate them to see every route's path.
        routes = [
            r for r in iter_route_contexts(request.app.routes) if (r.path or "").startswith(PREFIX + "/")
        ]
        cached = _one_error_shape(
            get_openapi(title="Torchdrill API", version="1.0.0", description=DESCRIPTION, routes=routes)
        )
        request.app.state.api_v1_openapi = cached
    return cached


def _one_error_shape(spec: dict[str, Any]) -> dict[str, Any]:
    """Document FastAPI's automatic 422 with the shape the app really sends (``ErrorOut``)."""
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("ErrorOut", ErrorOut.model_json_schema())
    for methods in spec.get("paths", {}).values():
        for op in methods.values():
            invalid = op.get("responses", {}).get("422")
            if invalid is None:
                continue
            media = invalid.get("content", {}).get("application/json", {})
            if media.get("schema", {}).get("$ref", "").endswith("/HTTPValidationError"):
                media["schema"] = {"$ref": "#/components/schemas/ErrorOut"}
                invalid["description"] = "Malformed JSON or invalid fields (`invalid_input`)"
    for name in ("HTTPValidationError", "ValidationError"):
        if name not in json.dumps(spec["paths"]):
            schemas.pop(name, None)
    return spec


@router.get(PREFIX + "/openapi.json")
def openapi_json(request: Request) -> JSONResponse:
    return JSONResponse(v1_openapi(request))


def _resolve(spec: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = spec.get("components", {}).get("schemas", {}).get(name, {})
    return node


def _example(spec: dict[str, Any], content: dict[str, Any]) -> str | None:
    media = content.get("application/json") or content.get("application/x-www-form-urlencoded") or {}
    schema = _resolve(spec, media.get("schema", {}))
    examples = schema.get("examples") if isinstance(schema, dict) else None
    if examples:
        return json.dumps(examples[0], indent=2)
    if isinstance(schema, dict) and schema.get("properties"):
        return "fields: " + ", ".join(schema["properties"])
    return None


def _schema_text(spec: dict[str, Any], schema: dict[str, Any]) -> str:
    schema = _resolve(spec, schema)
    if "anyOf" in schema:
        return " | ".join(_schema_text(spec, s) for s in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    text = str(schema.get("type", "object"))
    bounds = [f"{k}={schema[k]}" for k in ("minimum", "maximum", "maxLength", "pattern") if k in schema]
    return text + (f" ({', '.join(bounds)})" if bounds else "")


def operations(spec: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for path, methods in spec.get("paths", {}).items():
        for method, op in methods.items():
            body = op.get("requestBody", {}).get("content", {})
            out.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "anchor": f"{method}-{path}".replace("/", "-").replace("{", "").replace("}", ""),
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "tag": (op.get("tags") or ["other"])[0],
                    "auth": bool(op.get("security")),
                    "params": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p.get("required", False),
                            "type": _schema_text(spec, p.get("schema", {})),
                            "description": p.get("description", ""),
                        }
                        for p in op.get("parameters", [])
                    ],
                    "body": _example(spec, body) if body else None,
                    "body_type": next(iter(body), None),
                    "responses": [
                        {
                            "status": status,
                            "description": r.get("description", ""),
                            "example": _example(spec, r.get("content", {})),
                        }
                        for status, r in sorted(op.get("responses", {}).items())
                    ],
                }
            )
    return out


@router.get(PREFIX + "/docs")
def docs_page(request: Request) -> Any:
    spec = v1_openapi(request)
    return render(request, "api_v1/docs.html", {"spec": spec, "operations": operations(spec)})
