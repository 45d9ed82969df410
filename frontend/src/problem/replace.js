// Replacing the learner's code (reset to starter, load a past submission) always offers Undo.
// Typing anything afterwards drops the undo: the new text is the learner's again.

export function createReplacer({ editor, drafts }) {
  const undoBar = document.getElementById("reset-undo");
  const undoText = document.getElementById("reset-undo-text");
  const undoBtn = document.getElementById("undo-reset");
  let before = null;
  let replacing = false;

  function set(text) {
    replacing = true;
    editor.setCode(text);
    drafts.changed(text);
    replacing = false;
  }
  /** Put `text` in the editor, keep what was there for Undo, and say what happened. */
  function replace(text, message) {
    before = editor.getCode();
    set(text);
    if (!undoBar) return;
    if (undoText) undoText.textContent = message;
    undoBar.hidden = false;
    undoBtn.focus();
  }
  if (undoBtn) {
    undoBtn.addEventListener("click", () => {
      if (before === null) return;
      set(before);
      before = null;
      undoBar.hidden = true;
      editor.focus();
    });
  }
  /** Called on every edit: a learner's own edit ends the chance to undo. */
  function edited() {
    if (!replacing && undoBar && !undoBar.hidden) { undoBar.hidden = true; before = null; }
  }
  return { replace, edited };
}

/** "Reset to starter": confirm first, then replace with undo. */
export function setUpReset({ replacer, starter }) {
  const resetBtn = document.getElementById("reset-btn");
  const confirmBar = document.getElementById("reset-confirm");
  if (!resetBtn || !confirmBar) return;
  const close = (focusBack) => {
    confirmBar.hidden = true;
    resetBtn.setAttribute("aria-expanded", "false");
    if (focusBack) resetBtn.focus();
  };
  resetBtn.addEventListener("click", () => {
    confirmBar.hidden = false;
    resetBtn.setAttribute("aria-expanded", "true");
    document.getElementById("reset-yes").focus();
  });
  document.getElementById("reset-no").addEventListener("click", () => close(true));
  confirmBar.addEventListener("keydown", (e) => { if (e.key === "Escape") close(true); });
  document.getElementById("reset-yes").addEventListener("click", () => {
    close(false);
    replacer.replace(starter, "Code reset to the starter.");
  });
}
