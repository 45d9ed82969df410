"""The one case renderer: a judged submission as terminal lines and as notebook HTML, in the same words.

The words are the server's: the verdict's label (``verdict_label``), the submission's message and
each case's ``message``; the renderer only lays them out. A public failed case without a message is
shown as ``expected E, got A``. The HTML escapes every value (in a notebook, server text is
untrusted: markup in it would run with the notebook's rights).
"""

from __future__ import annotations

from html import escape
from typing import Any


def verdict_words(view: dict[str, Any]) -> str:
    return str(view.get("verdict_label") or view.get("verdict") or view.get("status") or "")


def headline(view: dict[str, Any]) -> str:
    return (
        f"#{view['id']} {view['mode']}: {verdict_words(view).upper()}  "
        f"{view.get('passed')}/{view.get('total')} passed"
    )


def case_message(case: dict[str, Any]) -> str:
    """The case's message as the server wrote it (its first line), or expected/got for a public failure."""
    message = (case.get("message") or "").splitlines()[0] if case.get("message") else ""
    if case.get("public") and case.get("status") == "failed" and case.get("expected") is not None:
        message = message or f"expected {case['expected']}, got {case.get('actual')}"
    return message


def case_label(case: dict[str, Any]) -> str:
    """The case's label as the server names it (hidden cases: their number and what they exercise)."""
    return str(case.get("label") or case["name"])


def failing_input(case: dict[str, Any]) -> str:
    """The exact input text of a failed case, where the server may show it ("" otherwise): its
    ``try_input`` (a public case's, a failing generated input's; never a hidden case's own values),
    or from an older server a generated input's (``failure.input``)."""
    if case.get("status") == "passed":
        return ""
    given = case.get("try_input") or (case.get("failure") or {}).get("input")
    return given if isinstance(given, str) else ""


def status_line(view: dict[str, Any], elapsed_s: float) -> str:
    return f"#{view['id']} {view['status']}… {elapsed_s:.1f}s"


def result_lines(view: dict[str, Any]) -> list[str]:
    """The terminal's lines: the headline, the message, a table of the cases."""
    lines = [headline(view)]
    if view.get("message"):
        lines.append(str(view["message"]))
    tests = view.get("tests") or []
    if tests:
        width = max(len(case_label(t)) for t in tests)  # "hidden 3 · batch of one"
        lines.append(f"{'case':<{width}}  {'status':<8} {'time':>8}  message")
        for t in tests:
            lines.append(
                f"{case_label(t):<{width}}  {t['status']:<8} {t.get('time_ms', 0):>6.1f}ms  {case_message(t)}"
            )
            given = failing_input(t)
            if given:  # the failing input, as `torchdrill run --input` takes it
                lines.append(
                    f"  to run this input yourself, save it to a file for `torchdrill run --input`:\n{given}"
                )
    return lines


def _pre(label: str, text: object) -> str:
    return f"<div><b>{escape(label)}</b><pre>{escape(str(text))}</pre></div>"


def result_html(view: dict[str, Any]) -> str:
    """The notebook's HTML: the same headline, message and cases, every value escaped."""
    verdict = str(view.get("verdict") or "")
    colour = "#1a7f37" if verdict == "accepted" else "#cf222e"
    parts = [
        f'<div class="torchdrill-result" data-verdict="{escape(verdict)}">',
        f'<p style="font-weight:bold;color:{colour}">{escape(headline(view))}</p>',
    ]
    if view.get("message"):
        parts.append(f"<pre>{escape(str(view['message']))}</pre>")
    tests = view.get("tests") or []
    if tests:
        parts.append(
            "<table><thead><tr><th>case</th><th>status</th><th>time</th><th>message</th></tr></thead><tbody>"
        )
        for t in tests:
            parts.append(
                f"<tr><td>{escape(case_label(t))}</td><td>{escape(str(t['status']))}</td>"
                f"<td>{float(t.get('time_ms') or 0):.1f}ms</td><td>{escape(case_message(t))}</td></tr>"
            )
        parts.append("</tbody></table>")
        for t in tests:
            if failing_input(t):
                parts.append(
                    _pre(f"{case_label(t)}: a failing input (for `torchdrill run --input`)", failing_input(t))
                )
        for t in tests:
            if t.get("public") and t.get("status") != "passed" and t.get("expected") is not None:
                parts.append(f"<details open><summary>{escape(case_label(t))}</summary>")
                parts.append(_pre("expected", t["expected"]) + _pre("yours", t.get("actual")))
                if t.get("traceback"):
                    parts.append(_pre("traceback", t["traceback"]))
                parts.append("</details>")
    parts.append("</div>")
    return "".join(parts)


def status_html(line: str) -> str:
    return f'<p class="torchdrill-status">{escape(line)}</p>'
