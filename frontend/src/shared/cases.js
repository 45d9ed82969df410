// The one renderer of a submission's per-case results, from the submission view's JSON
// (app/submissions/views.py, its page form with `cases`). The problem page's live results and the
// submission page both call it, so a case looks the same everywhere.
import { el, kv } from "./dom.js";
import { compare } from "./diff.js";

/** The message as the server rendered it (`message_html`: nh3-sanitised, only its `code` spans
 * as <code>), or as text from an older server. */
function message(c) {
  const box = el("pre", "case-message");
  if (typeof c.message_html === "string" && c.message_html) box.innerHTML = c.message_html;
  else box.textContent = c.message;
  return box;
}

/** "Try this input": a failed case's input as custom-input text (`try_input`: a public case's, a
 * failing generated input's; the server never sends a hidden case's own values). Small inputs are
 * shown whole, bigger ones folded. The problem page takes it as a new *My input* tab (the
 * `torchdrill:try-input` event, custom.js); elsewhere the text can be copied. */
function tryInput(text) {
  const row = el("div", "case-try");
  if (text.length <= 400) {
    row.appendChild(el("span", "case-input-label", "The failing input"));
    row.appendChild(el("pre", "case-input", text));
  }
  else {
    const fold = el("details", "case-input-fold");
    fold.appendChild(el("summary", null, "The failing input (" + text.length + " characters)"));
    const box = el("pre", "case-input", text);
    box.tabIndex = 0; // it scrolls: reachable by keyboard
    box.setAttribute("aria-label", "The failing input");
    fold.appendChild(box);
    row.appendChild(fold);
  }
  if (document.getElementById("custom-input-text")) {
    const button = el("button", "btn btn-small try-input", "Try this input");
    button.type = "button";
    button.addEventListener("click", () => document.dispatchEvent(new CustomEvent("torchdrill:try-input", { detail: text })));
    row.appendChild(button);
  } else if (navigator.clipboard) {
    const button = el("button", "btn btn-small copy-input", "Copy this input");
    button.type = "button";
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(text).then(() => { button.textContent = "Copied"; }, () => { /* stays as it is */ });
    });
    row.appendChild(button);
  }
  return row;
}

/** One case as an <li>: status, name, time, message, the learner's traceback, values for public cases. */
export function renderCase(c) {
  const li = el("li", "case case-" + c.status);
  const head = el("div", "case-head");
  head.appendChild(el("span", "case-status", c.status.replace("_", " ")));
  head.appendChild(el("span", "case-name", c.label || (c.public ? c.name : "hidden test")));
  head.appendChild(el("span", "case-time muted", Math.round(c.time_ms || 0) + " ms"));
  li.appendChild(head);
  if (c.message) li.appendChild(message(c));
  const given = typeof c.try_input === "string" && c.try_input ? c.try_input
    : c.failure && typeof c.failure.input === "string" ? c.failure.input : ""; // older servers: generated inputs only
  if (given && c.status !== "passed") li.appendChild(tryInput(given));
  if (typeof c.traceback === "string" && c.traceback) {
    const tb = el("details", "traceback");
    tb.appendChild(el("summary", null, "Traceback (your code)" + (typeof c.line === "number" ? ", line " + c.line : "")));
    tb.appendChild(el("pre", null, c.traceback));
    li.appendChild(tb);
  }
  if (c.public) {
    const hasExpected = c.expected !== null && c.expected !== undefined;
    const hasActual = c.actual !== null && c.actual !== undefined;
    if (hasExpected && hasActual) {
      li.appendChild(compare(c.expected, c.actual, c.status !== "passed", c.labels));
    } else {
      if (hasExpected) li.appendChild(kv(c.labels ? c.labels[0] : "Expected", c.expected));
      if (hasActual) li.appendChild(kv(c.labels ? c.labels[1] : "Your output", c.actual));
    }
    if (c.stdout) li.appendChild(kv("Stdout", c.stdout));
  }
  return li;
}

// A custom run compares the reference's output for the learner's input with theirs.
const CUSTOM_LABELS = ["Reference output", "Your output"];

/** Replace a list's children with the cases of a submission view (`view.cases`, `view.mode`). */
export function renderCases(list, view) {
  list.textContent = "";
  const labels = view.mode === "custom" ? CUSTOM_LABELS : null;
  (view.cases || []).forEach((c) => list.appendChild(renderCase(labels ? { ...c, labels } : c)));
}
