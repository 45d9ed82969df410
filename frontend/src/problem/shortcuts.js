// The editor's keyboard help: the hint under the editor says how to leave it (Esc then Tab); the
// "Keyboard shortcuts" button opens the full list. Esc closes the list and returns to its button.

export function setUpShortcutsHelp() {
  const button = document.getElementById("shortcuts-btn");
  const help = document.getElementById("shortcuts-help");
  if (!button || !help) return;
  const toggle = (open) => {
    help.hidden = !open;
    button.setAttribute("aria-expanded", open ? "true" : "false");
  };
  button.addEventListener("click", () => toggle(help.hidden));
  help.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { toggle(false); button.focus(); }
  });
  button.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !help.hidden) { e.preventDefault(); toggle(false); }
  });
}
