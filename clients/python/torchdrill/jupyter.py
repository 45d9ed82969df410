"""``%load_ext torchdrill``: the learner commands in a notebook, as plain IPython display objects.

* ``%torchdrill login [--server URL]``: the token comes from ``$TORCHDRILL_TOKEN``, else it is
  asked for with :func:`getpass.getpass` (never echoed); it is kept in the CLI's config file, and
  never shown in the notebook. Without ``--server``: ``$TORCHDRILL_SERVER``, else the config's.
* ``%torchdrill pull SLUG``: the statement as HTML; the starter code in the next cell.
* ``%%torchdrill run SLUG`` / ``%%torchdrill submit SLUG``: the cell's code judged, the status
  live (one display updated in place), then the cases as HTML in the case renderer's words.
* ``%torchdrill hints SLUG [--next]``, ``%torchdrill tracks``.

Everything the server sends is escaped before it is shown (a notebook runs markup as the learner):
statements are rendered from Markdown with raw HTML off, results by :func:`render.result_html`.
No frontend extension: JupyterLab, the classic Notebook and VS Code all show these outputs.
"""

from __future__ import annotations

import getpass
import os
import shlex
import time
from html import escape
from typing import Any
from urllib.parse import quote

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import HTML, display
from markdown_it import MarkdownIt

from torchdrill.api import client_from_config
from torchdrill.commands import judge, remember
from torchdrill.config import config_path, load_config
from torchdrill.errors import ClientError
from torchdrill.render import result_html, status_html, status_line

USAGE = (
    "usage: %torchdrill login [--server URL] | %torchdrill pull SLUG | %torchdrill hints SLUG [--next]"
    " | %torchdrill tracks | %%torchdrill run SLUG | %%torchdrill submit SLUG"
)
# Markdown as CommonMark without raw HTML: markup in a statement is shown as text, and
# markdown-it refuses javascript:, vbscript: and data: links.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_html(text: str) -> str:
    return _MARKDOWN.render(text)


def _error(message: str) -> None:
    display(HTML(f'<p class="torchdrill-error" style="color:#cf222e">error: {escape(message)}</p>'))


@magics_class
class TorchdrillMagics(Magics):
    @line_cell_magic
    def torchdrill(self, line: str, cell: str | None = None) -> None:
        """Torchdrill in a notebook: see ``%torchdrill help``."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            return _error(str(exc))
        name, args = (words[0], words[1:]) if words else ("help", [])
        try:
            if cell is not None:
                if name not in ("run", "submit") or len(args) != 1:
                    raise ClientError(USAGE)
                return self.judge(name, args[0], cell)
            if name == "login":
                return self.login(args)
            if name == "pull" and len(args) == 1:
                return self.pull(args[0])
            if name == "hints" and args and set(args[1:]) <= {"--next"}:
                return self.hints(args[0], "--next" in args[1:])
            if name == "tracks" and not args:
                return self.tracks()
            if name in ("run", "submit"):
                raise ClientError(f"%%torchdrill {name} SLUG is a cell magic: put it on a cell's first line")
            raise ClientError(USAGE)
        except ClientError as exc:
            return _error(exc.message)

    def login(self, args: list[str]) -> None:
        server = None
        if args[:1] == ["--server"] and len(args) == 2:
            server = args[1]
        elif args:
            raise ClientError("usage: %torchdrill login [--server URL]")
        if server is None:
            server = os.environ.get("TORCHDRILL_SERVER")
        if server is None and config_path().exists():
            server = load_config()["server"]
        if not server or not server.startswith(("http://", "https://")):
            raise ClientError("give the server: %torchdrill login --server http://HOST:PORT")
        token = os.environ.get("TORCHDRILL_TOKEN") or getpass.getpass(
            "Torchdrill API token (create one on your account page): "
        )
        if not token.strip():
            raise ClientError("no token given")
        display(HTML(f"<p>{escape(remember(server, token.strip()))}</p>"))

    def pull(self, slug: str) -> None:
        problem = client_from_config().request("GET", f"/api/v1/problems/{quote(slug, safe='')}").json()
        header = (
            f"<h3>{escape(str(problem['title']))}</h3>"
            f"<p><code>{escape(str(problem['slug']))}</code> · {escape(str(problem['difficulty']))} · "
            f"{escape(str(problem['category']))} · implement "
            f"<code>{escape(str(problem['entry_point']))}</code></p>"
        )
        display(
            HTML(
                f'<div class="torchdrill-statement">{header}{markdown_html(str(problem["statement"]))}</div>'
            )
        )
        starter = problem.get("starter_code")
        if starter is None:
            raise ClientError(
                f"{slug} is a Premium problem: redeem a code on your account page to unlock it", 1
            )
        assert self.shell is not None  # a magic runs in a shell
        self.shell.set_next_input(f"%%torchdrill run {slug}\n{starter}", replace=False)

    def judge(self, mode: str, slug: str, code: str) -> None:
        api = client_from_config()
        started = time.monotonic()
        handle = display(HTML(status_html(f"sending {mode} for {slug}…")), display_id=True)

        def show(view: dict[str, Any]) -> None:
            handle.update(HTML(status_html(status_line(view, time.monotonic() - started))))

        view = judge(api, {"problem": slug, "code": code, "mode": mode}, show)
        handle.update(HTML(result_html(view)))

    def hints(self, slug: str, reveal_next: bool) -> None:
        url = f"/api/v1/problems/{quote(slug, safe='')}/hints"
        api = client_from_config()
        body = api.request("POST" if reveal_next else "GET", url + ("/next" if reveal_next else "")).json()
        items = "".join(f"<li>{markdown_html(str(h))}</li>" for h in body.get("revealed") or [])
        remaining = int(body.get("remaining") or 0)
        more = (
            f"<p>{remaining} more: <code>%torchdrill hints {escape(slug)} --next</code></p>"
            if remaining
            else ""
        )
        display(
            HTML(f"<ol>{items}</ol>{more}" if items or more else f"<p>{escape(slug)}: no hints revealed</p>")
        )

    def tracks(self) -> None:
        rows = client_from_config().request("GET", "/api/v1/tracks").json()["items"]
        cells = "".join(
            f"<tr><td>{int(t['position'])}</td><td><code>{escape(str(t['slug']))}</code></td>"
            f"<td>{escape(str(t['title']))}</td>"
            f"<td>{int((t.get('progress') or {}).get('solved', 0))}/{int(t['problem_count'])}</td></tr>"
            for t in rows
        )
        display(HTML(f"<table><tr><th></th><th>track</th><th>title</th><th>solved</th></tr>{cells}</table>"))


def register(ipython: Any) -> None:
    ipython.register_magics(TorchdrillMagics)
