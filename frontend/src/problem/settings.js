// Editor settings (font size, line wrap, vim keys), remembered in this browser, and the torch
// completions, fetched once the editor is up (they are a convenience: without them it still works).

const KEY = "torchdrill-editor-settings";
const DEFAULTS = { fontSize: 14, lineWrap: false, vim: false };
export const FONT_SIZES = [12, 13, 14, 15, 16, 18, 20];

export function loadSettings() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "{}");
    return {
      fontSize: FONT_SIZES.includes(saved.fontSize) ? saved.fontSize : DEFAULTS.fontSize,
      lineWrap: saved.lineWrap === true,
      vim: saved.vim === true,
    };
  } catch (e) {
    return { ...DEFAULTS };
  }
}

function save(settings) {
  try { localStorage.setItem(KEY, JSON.stringify(settings)); } catch (e) { /* not remembered */ }
}

/** The plain textarea (no CodeMirror) follows the font size and wrapping too; vim needs the editor. */
function applyToTextarea(textarea, settings) {
  textarea.style.fontSize = settings.fontSize + "px";
  textarea.wrap = settings.lineWrap ? "soft" : "off";
}

export function setUpSettings({ editor, textarea, settings }) {
  const fontSize = document.getElementById("setting-font-size");
  const wrap = document.getElementById("setting-wrap");
  const vimBox = document.getElementById("setting-vim");
  const panel = document.getElementById("editor-settings");
  if (!fontSize || !wrap || !vimBox || !panel) return;
  fontSize.value = String(settings.fontSize);
  wrap.checked = settings.lineWrap;
  vimBox.checked = settings.vim;
  if (editor.fallback) { vimBox.disabled = true; applyToTextarea(textarea, settings); }
  if (editor.onUpgrade) editor.onUpgrade(() => { vimBox.disabled = false; }); // CodeMirror took over
  panel.hidden = false;
  const changed = () => {
    settings.fontSize = parseInt(fontSize.value, 10) || DEFAULTS.fontSize;
    settings.lineWrap = wrap.checked;
    settings.vim = vimBox.checked && !editor.fallback;
    save(settings);
    if (editor.fallback) applyToTextarea(textarea, settings); else editor.configure(settings);
  };
  [fontSize, wrap, vimBox].forEach((control) => control.addEventListener("change", changed));
}

/** `url`: the list's content-hashed address (the page's data-completions-url), cached for good. */
export function loadCompletions(editor, url) {
  if (!editor.setCompletions) return;
  fetch(url || "/static/torch-completions.json", { credentials: "same-origin" })
    .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
    .then((data) => editor.setCompletions(data))
    .catch(() => { /* no completions: the editor works without them */ });
}
