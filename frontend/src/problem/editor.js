// The code editor: the page's own textarea at once, upgraded to CodeMirror (window.TorchdrillEditor,
// app/static/vendor/editor.js, loaded async) as soon as that bundle has run — the page is usable
// before the 600 KB bundle is compiled. Everything else talks to the small facade returned here,
// which keeps working across the upgrade (what was typed, the caret and focus carry over).

/** The plain textarea with the same keys as the real editor (Esc then Tab leaves it). */
function openTextarea(textarea, host, doc, { onRun, onSubmit, onChange }) {
  host.hidden = true;
  textarea.hidden = false;
  textarea.value = doc;
  textarea.addEventListener("input", () => onChange(textarea.value));
  let escaped = false;
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
    fallback: true,
  };
}

function openCodeMirror(textarea, host, doc, options) {
  host.hidden = false;
  const editor = window.TorchdrillEditor.create(host, { ...options, doc });
  textarea.hidden = true;
  textarea.removeAttribute("name");
  return editor;
}

export function openEditor({ textarea, host, doc, onRun, onSubmit, onChange, extra }) {
  const options = { onRun, onSubmit, onChange, ...(extra || {}) };
  let impl = null;
  let completions = null;
  const upgraded = [];
  const facade = {
    getCode: () => impl.getCode(),
    setCode: (text) => impl.setCode(text),
    focus: () => impl.focus(),
    markError: (line, column, message) => { if (impl.markError) impl.markError(line, column, message); },
    clearError: () => { if (impl.clearError) impl.clearError(); },
    configure: (settings) => { if (impl.configure) impl.configure(settings); },
    setCompletions: (data) => { completions = data; if (impl.setCompletions) impl.setCompletions(data); },
    get fallback() { return Boolean(impl.fallback); },
    /** Call `fn` once CodeMirror has taken over (at once if it already has). */
    onUpgrade: (fn) => { if (impl.fallback) upgraded.push(fn); else fn(); },
  };
  function upgrade() {
    if (!impl.fallback || !window.TorchdrillEditor) return;
    const focused = document.activeElement === textarea;
    const caret = textarea.selectionStart;
    const editor = openCodeMirror(textarea, host, textarea.value, options);
    impl = editor;
    if (completions && editor.setCompletions) editor.setCompletions(completions);
    if (editor.view) editor.view.dispatch({ selection: { anchor: Math.min(caret, editor.view.state.doc.length) } });
    if (focused) editor.focus();
    upgraded.splice(0).forEach((fn) => fn());
  }
  if (window.TorchdrillEditor) {
    impl = openCodeMirror(textarea, host, doc, options);
  } else {
    impl = openTextarea(textarea, host, doc, options);
    const script = document.getElementById("editor-script");
    if (script) script.addEventListener("load", upgrade);
    window.addEventListener("load", upgrade); // in case the script ran between the check and here
  }
  return facade;
}
