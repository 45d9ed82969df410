// The failing line in the editor (fields from the judge; absent on older servers) and a button to jump there.
import { el } from "../shared/dom.js";

export function errorLocation(s) {
  if (typeof s.line === "number" && s.line > 0) {
    return { line: s.line, column: typeof s.column === "number" ? s.column : null, message: s.message || "" };
  }
  const cases = Array.isArray(s.cases) ? s.cases : [];
  for (const c of cases) {
    if (c.status !== "passed" && typeof c.line === "number" && c.line > 0) {
      return { line: c.line, column: null, message: c.message || "" };
    }
  }
  // Older judges only name the line in the message: "... (solution.py, line 8)".
  const texts = [s.message].concat(cases.filter((c) => c.status !== "passed").map((c) => c.message));
  for (const text of texts) {
    const found = /solution\.py, line (\d+)\)/.exec(text || "");
    if (found) return { line: parseInt(found[1], 10), column: null, message: text };
  }
  return null;
}

export function createMarkers(editor) {
  function clear() { if (editor.clearError) editor.clearError(); }
  /** Mark the error of submission view `s` and add a "Show line N" button to `messageBox`. */
  function mark(s, messageBox) {
    const at = errorLocation(s);
    if (!at) return;
    if (editor.markError) editor.markError(at.line, at.column, at.message);
    const jump = el("button", "btn btn-ghost error-jump", "Show line " + at.line + (at.column ? ", column " + at.column : "") + " in the editor");
    jump.type = "button";
    jump.id = "error-jump";
    jump.addEventListener("click", () => {
      if (editor.markError) editor.markError(at.line, at.column, at.message);
      editor.focus();
    });
    messageBox.hidden = false;
    messageBox.appendChild(document.createTextNode("\n"));
    messageBox.appendChild(jump);
  }
  return { clear, mark };
}
