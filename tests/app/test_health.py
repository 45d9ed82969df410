from __future__ import annotations

from fastapi.testclient import TestClient

from app.kit.db import Database


def test_healthz_ok_when_database_and_runner_are_ready(browser) -> None:
    response = browser.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] == "ok" and body["runner"] == "ok"
    assert body["runtime"]["torch"]


def test_healthz_503_when_the_database_is_unreachable(make_app) -> None:
    broken = Database("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1")
    app = make_app(database=broken)
    response = TestClient(app).get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable" and response.json()["error"] == "unavailable"
    assert response.json()["database"].startswith("unavailable")


class NotReadyRunner:
    """A runner whose sandbox has not started (or died)."""

    def ready(self) -> bool:
        return False

    def runtime_info(self) -> dict[str, str]:
        raise RuntimeError("no sandbox")


def test_healthz_503_while_the_runner_is_not_ready(make_app) -> None:
    response = TestClient(make_app(runner=NotReadyRunner())).get("/healthz")
    assert response.status_code == 503 and response.json()["runner"] == "starting"
