// The results panel, right under Run/Submit: the verdict line, the message, the cases (shared
// renderer; passing ones folded), the error marker, and after Accepted the Solved badge and the next
// problem. A finished run is announced once, in one short sentence (#verdict-announce, the panel's
// only live region), and the verdict is brought into view and focused.
import { el } from "../shared/dom.js";
import { renderCases } from "../shared/cases.js";
import { passedPhrase } from "../shared/words.js";

/** Move the passing cases of `list` into one folded "N passed" item (first), so failures lead. */
export function foldPassed(list) {
  const passed = Array.from(list.querySelectorAll(":scope > li.case-passed"));
  if (!passed.length) return;
  const item = el("li", "case-fold");
  const fold = el("details", "passed-fold");
  const total = list.querySelectorAll(":scope > li.case").length;
  fold.appendChild(el("summary", null, passedPhrase(passed.length, total)));
  const inner = el("ol", "cases");
  passed.forEach((li) => inner.appendChild(li));
  fold.appendChild(inner);
  item.appendChild(fold);
  list.insertBefore(item, list.firstChild);
}

export function createResults({ root, progress, markers, showVerdictTab, showCustomTab }) {
  const summary = document.getElementById("results-summary");
  const messageBox = document.getElementById("results-message");
  const caseList = document.getElementById("results-cases");
  const announcer = document.getElementById("verdict-announce");

  /** The live region's one change per finished run (a repeated sentence still changes: a trailing space). */
  function announce(text) {
    if (!announcer) return;
    announcer.textContent = announcer.textContent === text ? text + "\u00a0" : text;
  }
  /** Bring the verdict where the eyes are: its tab, in view, focused (Shift+Tab walks back to the editor). */
  function reveal() {
    if (showVerdictTab) showVerdictTab();
    summary.focus({ preventScroll: true });
    summary.scrollIntoView({ block: "nearest" });
  }

  /** The verdict's message: as text (the page's own words), or as the server rendered the judge's
   * (`html`: nh3-sanitised `message_html`, only `code` spans as <code>, like the cases'), then `note`. */
  function showMessage(text, kind, html, note) {
    messageBox.hidden = !text && !note;
    messageBox.textContent = "";
    if (typeof html === "string" && html) messageBox.innerHTML = html;
    else messageBox.textContent = text || "";
    if (note) messageBox.appendChild(document.createTextNode((text ? "\n" : "") + note));
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
    announce("Not judged: " + message);
    reveal();
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
    showMessage(s.message, s.verdict === "accepted" ? "" : "error", s.message_html, note);
    renderCases(caseList, s);
    foldPassed(caseList);
    markers.mark(s, messageBox);
    const link = el("a", "submission-link", "Open submission #" + s.id);
    link.href = s.url;
    const li = el("li", "case-footer");
    li.appendChild(link);
    if (s.mode === "custom" && showCustomTab) {
      const back = el("button", "btn btn-ghost", "Edit my input");
      back.type = "button";
      back.id = "edit-my-input";
      back.addEventListener("click", () => showCustomTab(true));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(back);
    }
    caseList.appendChild(li);
    if (restored) return;
    celebrate(s);
    announce(summary.textContent + (document.getElementById("next-problem") ? ". Solved! A next problem is linked." : ""));
    reveal();
  }
  return { render, pending, failed, showMessage, isEmpty: () => caseList.childElementCount === 0 };
}
