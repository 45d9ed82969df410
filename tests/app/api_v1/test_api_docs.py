"""The OpenAPI document and the docs page are served by the app, with no external assets.

(docs/api.md's examples run against the shipped bank: tests/app/docs_examples/test_docs_run.py.)
"""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


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
