"""The allowed-hosts check, attacked through real HTTP (uvicorn on 127.0.0.1, hand-written requests)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.kit.db import Database
from app.kit.hosts import allowed_hosts, host_name
from app.kit.runner import JudgeRunner
from app.kit.settings import Settings
from app.main import create_app
from tests.app.cli.conftest import serve_in_thread
from tests.app.conftest import settings_for
from tests.app.rawhttp import raw_request

SITE = "https://drill.example.org"


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("drill.example.org", "drill.example.org"),
        ("DRILL.Example.Org", "drill.example.org"),
        ("drill.example.org.", "drill.example.org"),
        ("drill.example.org:443", "drill.example.org"),
        ("drill.example.org.:8443", "drill.example.org"),
        ("127.0.0.1:8000", "127.0.0.1"),
        ("[::1]:8000", "[::1]"),
        ("[::1]", "[::1]"),
    ],
)
def test_host_names_compare_without_case_trailing_dot_or_port(header: str, name: str) -> None:
    assert host_name(header) == name


@pytest.mark.parametrize(
    "header",
    ["", ":443", "evil.example@drill.example.org", "drill.example.org:https", "drill.example.org:80:80",
     "drill.example.org/evil", "drill.example.org\\evil", "drill example.org", "drill.example.org..",
     "drill_example.org", "-drill.example.org", "[::1", "[evil.example]", "[::1]x", "[::1]:",
     "drill.example.org:", "xn--\u00e9vil.example", "drill.example.org%2fevil", "*"],
)  # fmt: skip
def test_malformed_hosts_name_nothing(header: str) -> None:
    assert host_name(header) is None


def test_allowed_hosts_come_from_the_public_url_and_the_extension() -> None:
    production = Settings(env="production", secret_key="s" * 40, public_url=SITE, metrics_token="m" * 32,
                          allowed_hosts="www.example.org")  # type: ignore[arg-type]  # fmt: skip
    assert allowed_hosts(production) == {"drill.example.org", "www.example.org"}
    development = Settings(env="development")
    assert allowed_hosts(development) == {"127.0.0.1", "localhost", "[::1]"}
    assert "drill.example.org" in allowed_hosts(Settings(env="development", public_url=SITE + ":8443"))


@pytest.fixture
def server(db: Database, runner: JudgeRunner) -> Iterator[str]:
    extra = {"public_url": SITE, "allowed_hosts": ["www.example.org"]}
    settings = settings_for(db.url).model_copy(update=extra)
    application: FastAPI = create_app(settings, database=db, runner=runner)
    with TestClient(application):
        url, uvicorn_server, thread = serve_in_thread(application)
        yield url
        uvicorn_server.should_exit = True
        thread.join(timeout=10)


def get(server: str, host_lines: str, target: str = "/login") -> int:
    return raw_request(server, f"GET {target} HTTP/1.1\r\n{host_lines}".rstrip("\r\n")).status


@pytest.mark.parametrize(
    "host",
    ["drill.example.org", "DRILL.EXAMPLE.ORG", "drill.example.org.", "drill.example.org:443",
     "Drill.Example.Org.:8443", "www.example.org", "localhost:8000", "127.0.0.1"],
)  # fmt: skip
def test_the_sites_names_are_served_in_any_spelling(server: str, host: str) -> None:
    assert get(server, f"Host: {host}") == 200


@pytest.mark.parametrize(
    "host",
    ["evil.example", "drill.example.org.evil.example", "evil.example:443", "drill.example.org@evil.example",
     "evil.example#drill.example.org", "drill.example.org evil.example", "drill.example.org:evil",
     "drill.example.org:443:80", "[::2]", "0x7f.0.0.1", "", "drill.example.org/..",
     "xn--drll-9qa.example.org", "drill.example.org\tevil.example", "*.example.org", "example.org", "org"],
)  # fmt: skip
def test_any_other_host_gets_400_before_any_route(server: str, host: str) -> None:
    answer = raw_request(server, f"POST /forgot-password HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0")
    assert answer.status == 400, host
    assert answer.json()["error"] == "bad_host"
    assert host.encode() not in answer.body or not host  # never echoed back


def test_a_doubled_or_missing_host_gets_400(server: str) -> None:
    assert get(server, "Host: drill.example.org\r\nHost: evil.example") == 400
    assert get(server, "Host: evil.example\r\nHost: drill.example.org") == 400
    assert get(server, "Host: drill.example.org\r\nHost: drill.example.org") == 400
    assert raw_request(server, "GET /login HTTP/1.0").status == 400  # HTTP/1.0 may omit Host
    assert get(server, "Host: drill.example.org") == 200  # so the refusals above can be told apart


def test_health_is_exempt_for_probes_by_address(server: str) -> None:
    assert get(server, "Host: 10.1.2.3:8000", "/healthz") in (200, 503)
    assert raw_request(server, "GET /healthz HTTP/1.0").status in (200, 503)
    assert get(server, "Host: 10.1.2.3:8000", "/healthz/../login") == 400
    assert get(server, "Host: 10.1.2.3:8000", "/metrics") == 400


@pytest.mark.parametrize(
    "head",
    [
        "GET /login HTTP/1.1\r\nHost: evil.example\r\n drill.example.org",  # obsolete line folding
        "GET /login HTTP/1.1\r\nHost: drill.example.org\x00.evil.example",
        "GET /login HTTP/1.1\r\nHost: drill.example.org\xe9",
        "GET /login HTTP/1.1\r\nHost: " + "a" * 5000 + ".example.org",
        "GET /login HTTP/1.1\r\nHost : drill.example.org",  # a space before the colon
        "GET /login HTTP/1.1\r\nHost:\r\nX-Forwarded-Host: drill.example.org",
    ],
    ids=["folded", "nul", "latin-1", "long", "space-before-colon", "empty-with-xfh"],
)
def test_raw_header_tricks_are_refused(server: str, head: str) -> None:
    # uvicorn's parser refuses some of these itself (400 too); none of them reaches a page.
    assert raw_request(server, head).status == 400
