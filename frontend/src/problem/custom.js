// "Run with my input": the learner's arguments (JSON or Python literals, read on the server, never
// executed) are run through the reference and through their code, each in its own sandbox job; the
// results panel shows both outputs with the diff. A refused input is explained next to the box and
// the text stays exactly as typed.
import { embedded } from "../shared/dom.js";

/** One argument a line, as the page first shows the example. */
function formatArguments(args) {
  const lines = Object.keys(args).map((name) => "  " + JSON.stringify(name) + ": " + JSON.stringify(args[name]));
  return "{\n" + lines.join(",\n") + "\n}";
}

export function setUpCustomInput({ judge }) {
  const box = document.getElementById("custom-input-text");
  const runBtn = document.getElementById("custom-run-btn");
  if (!box || !runBtn) return;
  const errorBox = document.getElementById("custom-input-error");
  const example = embedded("example-input");

  function showError(text) {
    errorBox.hidden = !text;
    errorBox.textContent = text || "";
    box.setAttribute("aria-invalid", text ? "true" : "false");
  }
  runBtn.addEventListener("click", () => {
    showError("");
    judge.send({ mode: "custom", input_text: box.value }, "Running your input…").catch((err) => {
      showError(err.message);
      box.focus();
    });
  });
  const resetBtn = document.getElementById("custom-reset-btn");
  if (resetBtn && example) {
    resetBtn.addEventListener("click", () => {
      box.value = formatArguments(example);
      showError("");
      box.focus();
    });
  }
  box.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); e.stopPropagation(); runBtn.click(); }
  });
}
