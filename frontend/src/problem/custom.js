// "My input", the results panel's second tab: the learner's arguments (JSON or Python literals, read
// on the server, never executed) are run through the reference and through their code, each in its
// own sandbox job; the verdict tab shows both outputs with the diff. Several inputs, one tab each
// (kept in this page only); a refused input is explained next to the box and the text stays as typed.
import { embedded, el } from "../shared/dom.js";

/** One argument a line, as the page first shows the example. */
function formatArguments(args) {
  const lines = Object.keys(args).map((name) => "  " + JSON.stringify(name) + ": " + JSON.stringify(args[name]));
  return "{\n" + lines.join(",\n") + "\n}";
}

export function setUpCustomInput({ judge, selectResultsTab }) {
  const box = document.getElementById("custom-input-text");
  const runBtn = document.getElementById("custom-run-btn");
  if (!box || !runBtn) return;
  const errorBox = document.getElementById("custom-input-error");
  const tabBar = document.getElementById("input-tabs");
  const addBtn = document.getElementById("custom-add-btn");
  const removeBtn = document.getElementById("custom-remove-btn");
  const example = embedded("example-input");
  const inputs = [box.value]; // the texts of the input tabs; the box shows inputs[current]
  let current = 0;

  function showError(text) {
    errorBox.hidden = !text;
    errorBox.textContent = text || "";
    box.setAttribute("aria-invalid", text ? "true" : "false");
  }
  /** Redraw the input tabs ("Input 1", "Input 2", ...) with `current` selected. */
  function drawTabs() {
    tabBar.textContent = "";
    tabBar.hidden = inputs.length < 2;
    inputs.forEach((_, i) => {
      const tab = el("button", "input-tab", "Input " + (i + 1));
      tab.type = "button";
      tab.id = "input-tab-" + (i + 1);
      tab.setAttribute("role", "tab");
      tab.setAttribute("aria-controls", "custom-input-text");
      tab.setAttribute("aria-selected", i === current ? "true" : "false");
      tab.tabIndex = i === current ? 0 : -1;
      tab.addEventListener("click", () => pick(i, false));
      tab.addEventListener("keydown", (e) => {
        const moves = { ArrowRight: (i + 1) % inputs.length, ArrowLeft: (i - 1 + inputs.length) % inputs.length, Home: 0, End: inputs.length - 1 };
        if (!(e.key in moves)) return;
        e.preventDefault();
        pick(moves[e.key], true);
      });
      tabBar.appendChild(tab);
    });
    removeBtn.hidden = inputs.length < 2;
  }
  function pick(i, focusTab) {
    inputs[current] = box.value;
    current = i;
    box.value = inputs[i];
    showError("");
    drawTabs();
    if (focusTab) document.getElementById("input-tab-" + (i + 1)).focus();
  }
  addBtn.addEventListener("click", () => {
    inputs[current] = box.value;
    inputs.push(box.value); // a copy of the one shown: the usual next step is a small change to it
    pick(inputs.length - 1, false);
    box.focus();
  });
  removeBtn.addEventListener("click", () => {
    inputs.splice(current, 1);
    current = Math.min(current, inputs.length - 1);
    box.value = inputs[current];
    drawTabs();
    box.focus();
  });
  box.addEventListener("input", () => { inputs[current] = box.value; });

  runBtn.addEventListener("click", () => {
    showError("");
    const refused = (message) => {
      showError(message);
      if (selectResultsTab) selectResultsTab(false);
      box.focus();
    };
    judge.send({ mode: "custom", input_text: box.value }, "Running your input…", undefined, refused).catch(() => { /* shown */ });
  });
  const resetBtn = document.getElementById("custom-reset-btn");
  if (resetBtn && example) {
    resetBtn.addEventListener("click", () => {
      box.value = formatArguments(example);
      inputs[current] = box.value;
      showError("");
      box.focus();
    });
  }
  // "Try this input" on a failed case (shared/cases.js): the input in a new tab, shown and focused,
  // so what the learner typed in the other tabs stays as it was.
  document.addEventListener("torchdrill:try-input", (e) => {
    if (typeof e.detail !== "string") return;
    inputs[current] = box.value;
    inputs.push(e.detail);
    pick(inputs.length - 1, false);
    if (selectResultsTab) selectResultsTab(false, true);
    else box.focus();
  });
  box.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); e.stopPropagation(); runBtn.click(); }
  });
  drawTabs();
}
