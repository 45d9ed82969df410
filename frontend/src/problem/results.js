// The results panel: the verdict line, the message, the cases (shared renderer), the error marker,
// and after Accepted the Solved badge and the next problem.
import { el } from "../shared/dom.js";
import { renderCases } from "../shared/cases.js";

export function createResults({ root, progress, markers }) {
  const summary = document.getElementById("results-summary");
  const messageBox = document.getElementById("results-message");
  const caseList = document.getElementById("results-cases");

  function showMessage(text, kind) {
    messageBox.hidden = !text;
    messageBox.textContent = text || "";
    messageBox.className = "results-message" + (kind ? " " + kind : "");
  }
  function pending(text) {
    showMessage("");
    markers.clear();
    caseList.textContent = "";
    summary.textContent = text;
    summary.className = "muted pending";
  }
  function failed(message) {
    summary.textContent = "Not judged";
    summary.className = "verdict v-error";
    showMessage(message, "error");
  }
  function celebrate(s) {
    if (s.verdict !== "accepted" || s.mode !== "submit") return;
    const markBox = document.getElementById("solved-mark");
    const tpl = document.getElementById("solved-mark-template");
    if (markBox && tpl) { markBox.textContent = ""; markBox.appendChild(tpl.content.cloneNode(true)); }
    if (root.dataset.nextUrl) {
      const p = el("p", "next-problem");
      p.id = "next-problem";
      p.appendChild(document.createTextNode("Solved! Next: "));
      const a = el("a", null, root.dataset.nextTitle || "the next problem");
      a.href = root.dataset.nextUrl;
      p.appendChild(a);
      caseList.parentNode.insertBefore(p, caseList);
    }
  }
  /** Show a submission view (restored: the last result, shown on page load without progress). */
  function render(s, restored) {
    if (s.status !== "finished" && restored) return;
    if (s.status !== "finished") {
      progress.setStep(s.status);
      summary.textContent = s.status === "queued" ? "Queued…" : "Running…";
      summary.className = "muted pending";
      return;
    }
    if (!restored) progress.stop(true);
    const old = document.getElementById("next-problem");
    if (old) old.remove();
    const label = s.verdict_label || s.verdict;
    const what = s.mode === "custom" ? "run with your input" : s.mode || "result";
    summary.textContent = (restored ? "Last " + what + ": " : s.mode === "custom" ? "Your input: " : "") + label + " — " + s.passed + "/" + s.total + " passed" +
      (s.time_ms ? " in " + Math.round(s.time_ms) + " ms" : "");
    summary.className = "verdict v-" + s.verdict;
    const note = s.verdict_explanation || ""; // the one explanation per verdict: runner/verdict.py
    showMessage([s.message, note].filter(Boolean).join("\n"), s.verdict === "accepted" ? "" : "error");
    renderCases(caseList, s);
    markers.mark(s, messageBox);
    const link = el("a", "submission-link", "Open submission #" + s.id);
    link.href = s.url;
    const li = el("li", "case-footer");
    li.appendChild(link);
    caseList.appendChild(li);
    if (!restored) celebrate(s);
  }
  return { render, pending, failed, showMessage, isEmpty: () => caseList.childElementCount === 0 };
}
