// Torchdrill's code editor: CodeMirror 6 with Python, 4-space indentation and run/submit keys;
// settings (font size, line wrap, a vim keymap) that change without rebuilding the editor, and
// completion of torch names from a list generated from the pinned torch (torch-completions.js).
// Built by `npm run build` into app/static/vendor/editor.js (an IIFE exposing window.TorchdrillEditor).
import { basicSetup } from "codemirror";
import { EditorView, keymap, Decoration, gutter, GutterMarker } from "@codemirror/view";
import { Compartment, EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import { indentUnit, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { indentWithTab } from "@codemirror/commands";
import { python, pythonLanguage } from "@codemirror/lang-python";
import { tags as t } from "@lezer/highlight";
import { vim } from "@replit/codemirror-vim";
import { torchCompletions } from "./torch-completions.js";

// Colours come from CSS variables, so the page's light/dark theme applies without rebuilding.
const theme = EditorView.theme({
  "&": { color: "var(--code-fg)", backgroundColor: "var(--code-bg)", fontSize: "14px", height: "100%" },
  ".cm-content": { fontFamily: "var(--mono)", caretColor: "var(--accent)" },
  ".cm-gutters": { backgroundColor: "var(--code-gutter)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--code-active)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active)" },
  "&.cm-focused": { outline: "2px solid var(--focus)" },
  ".cm-selectionBackground, &.cm-focused .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--code-selection) !important",
  },
  ".cm-cursor": { borderLeftColor: "var(--accent)" },
  ".cm-error-line": { backgroundColor: "var(--code-error-line, rgba(220, 38, 38, 0.14))" },
  ".cm-error-caret": { textDecoration: "underline wavy var(--bad, #dc2626)", textUnderlineOffset: "3px" },
  ".cm-error-gutter .cm-gutterElement": { padding: "0 2px", color: "var(--bad, #dc2626)" },
  ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--fg)", border: "1px solid var(--border)" },
});

const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.operatorKeyword, t.definitionKeyword, t.moduleKeyword], color: "var(--hl-keyword)" },
  { tag: [t.string, t.special(t.string)], color: "var(--hl-string)" },
  { tag: [t.number, t.bool, t.null], color: "var(--hl-number)" },
  { tag: [t.comment, t.lineComment, t.blockComment], color: "var(--hl-comment)", fontStyle: "italic" },
  { tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName))], color: "var(--hl-function)" },
  { tag: [t.className, t.definition(t.className), t.typeName], color: "var(--hl-type)" },
  { tag: [t.standard(t.variableName), t.self], color: "var(--hl-builtin)" },
  { tag: [t.meta, t.annotation], color: "var(--hl-decorator)" },
  { tag: [t.operator, t.punctuation], color: "var(--hl-operator)" },
]);

// ---- the failing line: a line highlight, a gutter marker and (syntax errors) the caret column ----
const setError = StateEffect.define();
const errorField = StateField.define({
  create: () => ({ pos: null, deco: Decoration.none }),
  update(value, tr) {
    let { pos, deco } = value;
    if (tr.docChanged) {
      deco = deco.map(tr.changes);
      if (pos !== null) pos = tr.changes.mapPos(pos);
    }
    for (const e of tr.effects) {
      if (!e.is(setError)) continue;
      const err = e.value;
      if (!err || !err.line || err.line < 1 || err.line > tr.state.doc.lines) { pos = null; deco = Decoration.none; continue; }
      const line = tr.state.doc.line(err.line);
      const ranges = [Decoration.line({ class: "cm-error-line", attributes: { title: err.message || "The error is on this line" } }).range(line.from)];
      if (err.column && err.column >= 1 && line.length > 0) {
        const at = Math.min(line.from + err.column - 1, line.to - 1);
        ranges.push(Decoration.mark({ class: "cm-error-caret" }).range(at, at + 1));
      }
      pos = line.from;
      deco = Decoration.set(ranges, true);
    }
    return { pos, deco };
  },
  provide: (f) => EditorView.decorations.from(f, (v) => v.deco),
});
class ErrorMarker extends GutterMarker {
  constructor(cls) { super(); this.cls = cls; }
  toDOM() {
    const node = document.createElement("span");
    node.className = this.cls;
    node.textContent = "●";
    node.setAttribute("aria-hidden", "true");
    return node;
  }
}
const errorMarker = new ErrorMarker("cm-error-marker");
const errorSpacer = new ErrorMarker("cm-error-spacer"); // sizes the gutter; never shown
const errorGutter = gutter({
  class: "cm-error-gutter",
  lineMarker(view, line) {
    const pos = view.state.field(errorField).pos;
    return pos !== null && pos >= line.from && pos <= line.to ? errorMarker : null;
  },
  lineMarkerChange: (update) => update.docChanged || update.transactions.some((tr) => tr.effects.some((e) => e.is(setError))),
  initialSpacer: () => errorSpacer,
});

// ---- settings: each lives in its own compartment, so changing one keeps the document and undo history ----
const keymapSlot = new Compartment();
const wrapSlot = new Compartment();
const fontSlot = new Compartment();
const completionSlot = new Compartment();
function settingsExtensions(settings) {
  return {
    keymap: settings.vim ? vim() : [],
    wrap: settings.lineWrap ? EditorView.lineWrapping : [],
    font: Prec.highest(EditorView.theme({ "&": { fontSize: (settings.fontSize || 14) + "px" } })),
  };
}

export function create(parent, options = {}) {
  const noop = () => {};
  const onRun = options.onRun || noop;
  const onSubmit = options.onSubmit || noop;
  const onChange = options.onChange || noop;
  const runKeys = Prec.highest(
    keymap.of([
      { key: "Mod-Enter", run: () => { onRun(); return true; } },
      { key: "Shift-Mod-Enter", run: () => { onSubmit(); return true; } },
    ]),
  );
  // Esc then Tab leaves the editor (CodeMirror's tab focus mode). Esc is marked here, before any
  // keymap: with suggestions open, the completion's own Esc would otherwise swallow it.
  const escapeFreesTab = Prec.highest(
    EditorView.domEventHandlers({
      keydown: (event, view) => {
        if (event.key === "Escape") view.setTabFocusMode(2000);
        return false;
      },
    }),
  );
  // tabindex: the content is a tab stop anyway (contenteditable); saying so lets checkers see that the
  // scroller around it has keyboard access (axe: scrollable-region-focusable).
  const contentAttributes = { "aria-label": options.label || "solution.py source code", tabindex: "0" };
  if (options.describedBy) contentAttributes["aria-describedby"] = options.describedBy;
  const initial = settingsExtensions(options.settings || {});
  const completionsOf = (data) => (data ? pythonLanguage.data.of({ autocomplete: torchCompletions(data) }) : []);
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc || "",
      extensions: [
        keymapSlot.of(initial.keymap), // first: vim's keys take precedence over the default ones
        runKeys,
        escapeFreesTab,
        errorField,
        errorGutter,
        basicSetup,
        keymap.of([indentWithTab]),
        python(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        theme,
        fontSlot.of(initial.font),
        wrapSlot.of(initial.wrap),
        completionSlot.of(completionsOf(options.completions)),
        syntaxHighlighting(highlight),
        EditorState.readOnly.of(Boolean(options.readOnly)),
        EditorView.contentAttributes.of(contentAttributes),
        EditorView.updateListener.of((update) => { if (update.docChanged) onChange(update.state.doc.toString()); }),
      ],
    }),
  });
  return {
    view,
    getCode: () => view.state.doc.toString(),
    setCode: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    focus: () => view.focus(),
    // Mark the line (1-based) the learner's error points at; column (1-based) for syntax errors.
    markError: (line, column, message) => {
      view.dispatch({ effects: setError.of({ line, column, message }) });
      const pos = view.state.field(errorField).pos;
      if (pos !== null) view.dispatch({ effects: EditorView.scrollIntoView(pos, { y: "center" }) });
    },
    clearError: () => view.dispatch({ effects: setError.of(null) }),
    // Offer torch names (the JSON of scripts/gen-torch-completions.py), once it has loaded.
    setCompletions: (data) => view.dispatch({ effects: completionSlot.reconfigure(completionsOf(data)) }),
    // Apply editor settings ({fontSize, lineWrap, vim}) in place.
    configure: (settings) => {
      const next = settingsExtensions(settings);
      view.dispatch({
        effects: [keymapSlot.reconfigure(next.keymap), wrapSlot.reconfigure(next.wrap), fontSlot.reconfigure(next.font)],
      });
    },
  };
}
