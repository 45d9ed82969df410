"""Static files: pages name content-hashed files, served compressed and cached for good (issue #40, 8).

Through the real app (the ``browser`` client) for what pages reference, and a small Starlette app
over a temporary folder for versions changing on disk and paths that try to leave the folder.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from app.kit.static_assets import IMMUTABLE, MIN_COMPRESS_BYTES, StaticAssets, StaticAssetsApp, hashed_name

ROOT = Path(__file__).resolve().parents[3]
HASHED = re.compile(r'(?:src|href)="(/static/[^"]+\.[0-9a-f]{10}\.(?:js|css|json))"')


def test_pages_reference_hashed_names_served_immutable_and_gzipped(browser) -> None:
    html = browser.get("/problems/add-tensors").text
    urls = set(HASHED.findall(html))
    names = {re.sub(r"\.[0-9a-f]{10}\.", ".", u) for u in urls}
    assert {"/static/css/app.css", "/static/js/app.js", "/static/js/theme.js",
            "/static/js/problem.bundle.js", "/static/vendor/editor.js"} <= names  # fmt: skip
    assert '"/static/vendor/editor.js"' not in html  # no plain name left in the page
    completions = re.search(r'data-completions-url="([^"]+)"', html)
    assert completions and HASHED.match(f'src="{completions.group(1)}"')
    for url in urls:
        response = browser.get(url, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, url
        assert response.headers["cache-control"] == IMMUTABLE
        assert "accept-encoding" in response.headers["vary"].lower()
        plain = re.sub(r"\.[0-9a-f]{10}\.", ".", url).removeprefix("/static/")
        on_disk = (ROOT / "app" / "static" / plain).read_bytes()
        assert response.content == on_disk  # decoded by the client
        if len(on_disk) >= MIN_COMPRESS_BYTES:  # a few hundred bytes are not worth a gzip header
            assert response.headers["content-encoding"] == "gzip", url

    editor = next(u for u in urls if "/vendor/editor." in u)
    raw = browser.get(editor, headers={"Accept-Encoding": "gzip"})
    assert int(raw.headers["content-length"]) < (ROOT / "app/static/vendor/editor.js").stat().st_size / 2


def test_plain_names_revalidate_and_etags_answer_304(browser) -> None:
    response = browser.get("/static/css/app.css", headers={"Accept-Encoding": "identity"})
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-cache"
    assert "content-encoding" not in response.headers
    assert response.headers["content-type"].startswith("text/css")
    again = browser.get("/static/css/app.css", headers={"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert browser.get("/static/css/nothing.css").status_code == 404
    assert browser.post("/static/css/app.css").status_code in (403, 405)  # CSRF or method: never served


def _client(folder: Path) -> TestClient:
    return TestClient(Starlette(routes=[Mount("/static", StaticAssetsApp(StaticAssets(folder)))]))


def test_a_new_version_gets_a_new_name_and_the_old_one_is_gone(tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    script = tmp_path / "js" / "a.js"
    script.write_text("console.log(1);\n" * 100)
    assets = StaticAssets(tmp_path)
    client = TestClient(Starlette(routes=[Mount("/static", StaticAssetsApp(assets))]))
    first = assets.url("js/a.js")
    assert first.startswith("/static/js/a.") and first.endswith(".js") and first != "/static/js/a.js"
    assert client.get(first).text == "console.log(1);\n" * 100
    script.write_text("console.log(2);\n" * 100)
    second = assets.url("js/a.js")
    assert second != first
    assert client.get(second).text == "console.log(2);\n" * 100
    assert client.get(first).status_code == 404  # an old name never serves the new content
    body = client.get(second, headers={"Accept-Encoding": "br;q=1, gzip;q=0.5"})
    assert body.headers["content-encoding"] == "gzip"
    refused = client.get(second, headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers
    assert hashed_name("LICENSE", "0123456789") == "LICENSE.0123456789"


def test_a_hashed_name_is_served_before_any_page_named_it(tmp_path: Path) -> None:
    (tmp_path / "app.css").write_text("body { color: red; }\n" * 40)
    url = StaticAssets(tmp_path).url("app.css")  # another process's name: a fresh server knows it too
    response = _client(tmp_path).get(url, headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200 and response.headers["cache-control"] == IMMUTABLE
    assert gzip.decompress(gzip.compress(response.content)) == (tmp_path / "app.css").read_bytes()
    wrong = url.replace(url.split(".")[-2], "0" * 10)
    assert _client(tmp_path).get(wrong).status_code == 404  # a digest that is not the content's


def test_paths_that_leave_the_folder_are_not_served(tmp_path: Path) -> None:
    public = tmp_path / "public"
    public.mkdir()
    (tmp_path / "secret.txt").write_text("the sealing key")
    (public / ".env").write_text("TORCHDRILL_SECRET_KEY=x")
    (public / "link.txt").symlink_to(tmp_path / "secret.txt")
    (public / "ok.txt").write_text("fine")
    client = _client(public)
    assert client.get("/static/ok.txt").text == "fine"
    for path in ("/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/link.txt",
                 "/static/.env", "/static//etc/passwd", "/static/ok.txt%00", "/static/"):  # fmt: skip
        response = client.get(path)
        assert response.status_code == 404, path
        assert b"sealing key" not in response.content and b"SECRET" not in response.content
