// Problem page: tabs, editor, drafts saved on the server as you type, Run/Submit with live progress.
// Nothing here ever replaces the learner's code because of an error: errors go to the results panel.
// Built by `npm run build` into app/static/js/problem.bundle.js (the page's only script of its own).
import { request } from "../shared/http.js";
import { embedded } from "../shared/dom.js";
import { setUpTabs, setUpTablist, setUpPaneSwitch } from "./tabs.js";
import { createDrafts } from "./drafts.js";
import { openEditor } from "./editor.js";
import { createReplacer, setUpReset } from "./replace.js";
import { createProgress } from "./progress.js";
import { createMarkers } from "./markers.js";
import { createResults } from "./results.js";
import { createJudge } from "./judge.js";
import { createHistory } from "./history.js";
import { setUpCustomInput } from "./custom.js";
import { loadSettings, setUpSettings, loadCompletions } from "./settings.js";
import { setUpSplit } from "./split.js";
import { setUpShortcutsHelp } from "./shortcuts.js";
import { refreshCounters } from "./counters.js";

function main() {
  const root = document.getElementById("problem");
  if (!root) return;
  const slug = root.dataset.slug;
  const loggedIn = root.dataset.loggedIn === "true";
  const userId = root.dataset.user || "anon";
  const timeLimit = parseFloat(root.dataset.timeLimit || "0");
  const api = "/api/problems/" + encodeURIComponent(slug);

  setUpTabs(root);
  setUpPaneSwitch(root);
  setUpSplit(root);

  const textarea = document.getElementById("code");
  const host = document.getElementById("editor");
  if (!textarea || !host) return; // locked problem: no editor
  const starter = embedded("starter-code") || "";
  const canSave = loggedIn && !!document.getElementById("run-btn");
  const drafts = createDrafts({ api, userId, slug, canSave, starter });
  const opened = drafts.initialCode(textarea.value);

  // The editor's callbacks reach modules made after it; they are only called once the page is set up.
  let judge = null;
  let replacer = null;
  const settings = loadSettings();
  const editor = openEditor({
    textarea,
    host,
    doc: opened.code,
    onRun: () => judge.start("run"),
    onSubmit: () => judge.start("submit"),
    onChange: (text) => { drafts.changed(text); if (replacer) replacer.edited(); },
    extra: { settings, describedBy: "editor-hint" },
  });
  setUpShortcutsHelp();
  setUpSettings({ editor, textarea, settings });
  loadCompletions(editor, root.dataset.completionsUrl);
  drafts.announceRestored(opened);
  replacer = createReplacer({ editor, drafts });
  setUpReset({ replacer, starter });

  const progress = createProgress(timeLimit);
  const markers = createMarkers(editor);
  // The results panel's tabs (Test results, My input) when the problem takes custom input.
  const resultsTabs = document.querySelector(".results-tabs");
  const selectTab = resultsTabs ? setUpTablist(resultsTabs) : null;
  const selectResultsTab = (verdict, focus) => {
    if (!selectTab) return;
    const id = verdict ? "results-tab-verdict" : "results-tab-custom";
    selectTab(id);
    if (focus) document.getElementById(id === "results-tab-custom" ? "custom-input-text" : id).focus();
  };
  const results = createResults({
    root, progress, markers,
    showVerdictTab: () => selectResultsTab(true, false),
    showCustomTab: selectTab ? () => selectResultsTab(false, true) : null,
  });
  const history = createHistory({ api, replacer });
  const onFinished = (s) => {
    history.refresh();
    const lesson = document.getElementById("learn-solution");
    if (lesson && s && s.mode !== "custom") lesson.open = true; // an attempt opens the rest of the lesson
    if (s && s.mode === "submit") refreshCounters(slug); // acceptance moves without a reload
  };
  judge = createJudge({ root, api, loggedIn, editor, drafts, results, progress, onFinished });
  setUpCustomInput({ judge, selectResultsTab });

  // The last result comes back on reload (the history has it; the panel should too).
  if (root.dataset.lastSubmission && loggedIn) {
    request("GET", "/api/submissions/" + encodeURIComponent(root.dataset.lastSubmission)).then((s) => {
      if (!judge.isBusy() && results.isEmpty()) results.render(s, true);
    }).catch(() => { /* a convenience: the history still links to it */ });
  }
}

main();
