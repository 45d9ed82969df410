// The one renderer of a submission's per-case results, from the submission view's JSON
// (app/submissions/views.py, its page form with `cases`). The problem page's live results and the
// submission page both call it, so a case looks the same everywhere.
import { el, kv } from "./dom.js";
import { compare } from "./diff.js";

/** One case as an <li>: status, name, time, message, the learner's traceback, values for public cases. */
export function renderCase(c) {
  const li = el("li", "case case-" + c.status);
  const head = el("div", "case-head");
  head.appendChild(el("span", "case-status", c.status.replace("_", " ")));
  head.appendChild(el("span", "case-name", c.public ? c.name : "hidden test"));
  head.appendChild(el("span", "case-time muted", Math.round(c.time_ms || 0) + " ms"));
  li.appendChild(head);
  if (c.message) li.appendChild(el("pre", "case-message", c.message));
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
