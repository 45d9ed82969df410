// The code editor: CodeMirror (window.TorchdrillEditor, from app/static/vendor/editor.js) when it
// loaded, else the plain textarea with the same keys. Everything else talks to this small interface.

export function openEditor({ textarea, host, doc, onRun, onSubmit, onChange, extra }) {
  if (window.TorchdrillEditor) {
    const editor = window.TorchdrillEditor.create(host, { doc, onRun, onSubmit, onChange, ...(extra || {}) });
    textarea.hidden = true;
    textarea.removeAttribute("name");
    return editor;
  }
  host.hidden = true;
  textarea.value = doc;
  textarea.addEventListener("input", () => onChange(textarea.value));
  let escaped = false; // Esc then Tab leaves the textarea, as in the real editor
  textarea.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); (e.shiftKey ? onSubmit : onRun)(); return; }
    if (e.key === "Escape") { escaped = true; return; }
    if (e.key === "Tab" && !e.shiftKey && !escaped) {
      e.preventDefault();
      textarea.setRangeText("    ", textarea.selectionStart, textarea.selectionEnd, "end");
      onChange(textarea.value);
    }
    escaped = false;
  });
  return {
    getCode: () => textarea.value,
    setCode: (text) => { textarea.value = text; },
    focus: () => textarea.focus(),
    markError: null,
    clearError: null,
    fallback: true,
  };
}
