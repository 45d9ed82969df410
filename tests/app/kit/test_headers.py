"""Every response carries the security headers; a response that sets one itself keeps its own."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from app.kit.headers import CSP, SecurityHeadersMiddleware

EXPECTED = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}


def _plain(_request: object) -> Response:
    return PlainTextResponse("hello")


def _own_policy(_request: object) -> Response:
    return PlainTextResponse("framed", headers={"Content-Security-Policy": "frame-ancestors 'self'"})


def _client() -> TestClient:
    app = Starlette(routes=[Route("/plain", _plain), Route("/own", _own_policy)])
    app.add_middleware(SecurityHeadersMiddleware)
    return TestClient(app)


def test_each_header_is_added_once() -> None:
    response = _client().get("/plain")
    assert response.text == "hello"
    for name, value in EXPECTED.items():
        assert response.headers.get_list(name) == [value]


def test_a_header_the_response_set_is_kept() -> None:
    response = _client().get("/own")
    assert response.headers.get_list("content-security-policy") == ["frame-ancestors 'self'"]
    assert response.headers["x-frame-options"] == "DENY"


def test_the_app_sends_them_on_pages_api_answers_and_errors(app: FastAPI) -> None:
    client = TestClient(app)
    for path in ("/problems", "/api/v1/problems", "/no-such-page"):
        response = client.get(path)
        for name, value in EXPECTED.items():
            assert response.headers.get_list(name) == [value], (path, name)
