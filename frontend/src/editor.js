// Torchdrill's code editor: CodeMirror 6 with Python, 4-space indentation and run/submit keys.
// Built by `npm run build` into app/static/vendor/editor.js (an IIFE exposing window.TorchdrillEditor).
import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { indentUnit, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { tags as t } from "@lezer/highlight";

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
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc || "",
      extensions: [
        runKeys,
        basicSetup,
        keymap.of([indentWithTab]),
        python(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        theme,
        syntaxHighlighting(highlight),
        EditorState.readOnly.of(Boolean(options.readOnly)),
        EditorView.contentAttributes.of({ "aria-label": options.label || "solution.py source code" }),
        EditorView.updateListener.of((update) => { if (update.docChanged) onChange(update.state.doc.toString()); }),
      ],
    }),
  });
  return {
    view,
    getCode: () => view.state.doc.toString(),
    setCode: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    focus: () => view.focus(),
  };
}
