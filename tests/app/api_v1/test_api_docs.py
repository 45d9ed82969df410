"""Every curl example of docs/api.md, run against the app; each must answer its documented status.

Also: the OpenAPI document and the docs page are served by the app, with no external assets.
"""

from __future__ import annotations

import re
import shlex
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi.testclient import TestClient

from tests.app.conftest import PASSWORD

API_MD = Path(__file__).resolve().parents[3] / "docs" / "api.md"


def curl_examples(markdown: str) -> list[tuple[int, str]]:
    """(expected status, command) for each curl line of the ```sh blocks."""
    examples = []
    for block in re.findall(r"```sh\n(.*?)```", markdown, re.S):
        expected = None
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if marker := re.match(r"# => (\d{3})$", line):
                expected = int(marker.group(1))
            elif line.startswith("curl "):
                assert expected is not None, f"no '# => status' above: {line}"
                examples.append((expected, line))
                expected = None
    return examples


def parse_curl(command: str, env: dict[str, str]) -> dict[str, Any]:
    args = [re.sub(r"\$([A-Z]+)", lambda m: env[m.group(1)], a) for a in shlex.split(command)[1:]]
    request: dict[str, Any] = {"method": None, "url": None, "headers": {}, "content": None, "form": []}
    it = iter(args)
    for arg in it:
        if arg == "-s":
            continue
        if arg == "-X":
            request["method"] = next(it)
        elif arg == "-H":
            name, value = next(it).split(":", 1)
            request["headers"][name.strip()] = value.strip()
        elif arg == "-d":
            request["content"] = next(it).encode()
        elif arg == "--data-urlencode":
            request["form"].append(tuple(next(it).split("=", 1)))
        elif arg.startswith(("http://", "https://", "/")):
            request["url"] = arg
        else:
            raise AssertionError(f"curl option not understood by this test: {arg}")
    if request["form"]:
        request["content"] = urlencode(request["form"]).encode()
        request["headers"]["Content-Type"] = "application/x-www-form-urlencoded"
    request["method"] = request["method"] or ("POST" if request["content"] is not None else "GET")
    return request


def test_every_curl_example_in_docs_api_md_works(app, db) -> None:
    client = TestClient(app)
    env = {"SERVER": "", "EMAIL": f"doc-{uuid.uuid4().hex[:8]}@example.com", "PASSWORD": PASSWORD,
           "TOKEN": "", "ID": ""}  # fmt: skip
    examples = curl_examples(API_MD.read_text())
    assert len(examples) >= 10
    for expected, command in examples:
        request = parse_curl(command, env)
        response = client.request(
            request["method"], request["url"], headers=request["headers"], content=request["content"]
        )
        assert response.status_code == expected, (command, response.text)
        body = response.json()
        if request["url"].endswith("/auth/token"):
            env["TOKEN"] = body["access_token"]
        if request["url"].startswith("/api/v1/submissions") and request["method"] == "POST" and "id" in body:
            env["ID"] = str(body["id"])
    assert env["TOKEN"] and env["ID"]


def test_openapi_and_docs_page_are_self_hosted(app) -> None:
    client = TestClient(app, follow_redirects=False)
    spec = client.get("/api/v1/openapi.json").json()
    paths = set(spec["paths"])
    documented = {"/api/v1/problems", "/api/v1/problems/{slug}", "/api/v1/submissions", "/api/v1/auth/token",
                  "/api/v1/submissions/{submission_id}", "/api/v1/auth/register"}  # fmt: skip
    assert documented <= paths
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    post = spec["paths"]["/api/v1/submissions"]["post"]
    assert {"202", "401", "403", "404", "409", "413", "422", "429"} <= set(post["responses"])
    assert "examples" in spec["components"]["schemas"]["SubmissionIn"]
    page = client.get("/api/v1/docs")
    assert page.status_code == 200 and "POST /api/v1/submissions" in page.text
    external = re.findall(r'(?:src|href)="(https?:)?//[^"]*"', page.text)
    assert external == [], external
    assert client.get("/api/docs").headers["location"] == "/api/v1/docs"
