(() => {
  // src/shared/http.js
  function csrfToken() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }
  function errorText(status, body) {
    if (body && typeof body.detail === "string") return body.detail;
    if (status === 0) return "Could not reach the server. Check your connection; your code is still here.";
    return "The request failed (HTTP " + status + "). Your code is still here; try again.";
  }
  function request(method, url, payload, extra) {
    const opts = {
      method,
      headers: { Accept: "application/json", "X-CSRF-Token": csrfToken() },
      credentials: "same-origin"
    };
    if (payload !== void 0) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(payload);
    }
    if (extra && extra.keepalive) opts.keepalive = true;
    return fetch(url, opts).then(
      (r) => r.json().catch(() => null).then((body) => {
        if (!r.ok) {
          const err = new Error(errorText(r.status, body));
          err.status = r.status;
          err.body = body;
          throw err;
        }
        return body;
      }),
      () => {
        const err = new Error(errorText(0));
        err.status = 0;
        throw err;
      }
    );
  }

  // src/shared/dom.js
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== void 0 && text !== null) node.textContent = text;
    return node;
  }
  function kv(label, value) {
    const row = el("div", "kv");
    row.appendChild(el("span", null, label));
    row.appendChild(el("pre", null, value));
    return row;
  }
  function embedded(id) {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  // src/problem/tabs.js
  function setUpTablist(tablist, onSelect) {
    const tabs = Array.from(tablist.querySelectorAll('[role="tab"]'));
    const select = (tab) => {
      tabs.forEach((t) => {
        const on = t === tab;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
      });
      if (onSelect) onSelect(tab);
    };
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => select(tab));
      tab.addEventListener("keydown", (e) => {
        let next = null;
        if (e.key === "ArrowRight") next = tabs[(i + 1) % tabs.length];
        if (e.key === "ArrowLeft") next = tabs[(i - 1 + tabs.length) % tabs.length];
        if (e.key === "Home") next = tabs[0];
        if (e.key === "End") next = tabs[tabs.length - 1];
        if (next) {
          e.preventDefault();
          select(next);
          next.focus();
        }
      });
    });
    return (id) => select(document.getElementById(id));
  }
  function setUpTabs(root) {
    const tablist = root.querySelector(".problem-pane .tabs");
    if (!tablist) return null;
    const select = setUpTablist(tablist);
    tablist.hidden = false;
    root.classList.add("has-tabs");
    root.querySelectorAll(".learn-title").forEach((h) => h.classList.add("visually-hidden"));
    select(location.hash === "#learn" ? "tab-learn" : "tab-statement");
    return select;
  }
  var PANE_KEY = "torchdrill-pane";
  function setUpPaneSwitch(root) {
    const paneSwitch = document.getElementById("pane-switch");
    if (!paneSwitch || !document.getElementById("editor")) return;
    const buttons = Array.from(paneSwitch.querySelectorAll("[data-pane]"));
    const show = (name, remember) => {
      root.dataset.pane = name;
      buttons.forEach((b) => b.setAttribute("aria-pressed", b.dataset.pane === name ? "true" : "false"));
      if (remember) {
        try {
          sessionStorage.setItem(PANE_KEY, name);
        } catch (e) {
        }
      }
    };
    buttons.forEach((b) => b.addEventListener("click", () => show(b.dataset.pane, true)));
    paneSwitch.hidden = false;
    root.classList.add("has-pane-switch");
    let saved = null;
    try {
      saved = sessionStorage.getItem(PANE_KEY);
    } catch (e) {
      saved = null;
    }
    show(saved === "code" ? "code" : "problem", false);
  }

  // src/problem/drafts.js
  var SAVE_DELAY_MS = 700;
  function createDrafts({ api, userId, slug, canSave, starter }) {
    const localKey = "torchdrill-draft:" + userId + ":" + slug;
    const statusBox = document.getElementById("draft-status");
    let pending = null;
    let saving = false;
    let saveTimer = null;
    const readLocal = (key) => {
      try {
        const raw = localStorage.getItem(key);
        return raw === null ? null : JSON.parse(raw).code;
      } catch (e) {
        return null;
      }
    };
    const writeLocal = (text) => {
      try {
        localStorage.setItem(localKey, JSON.stringify({ code: text, at: Date.now() }));
      } catch (e) {
      }
    };
    const dropLocal = (key) => {
      try {
        localStorage.removeItem(key);
      } catch (e) {
      }
    };
    function showStatus(text, state) {
      if (!statusBox) return;
      statusBox.textContent = text;
      statusBox.dataset.state = state;
    }
    function flush(keepalive) {
      clearTimeout(saveTimer);
      if (pending === null || saving) return Promise.resolve();
      const text = pending;
      pending = null;
      saving = true;
      showStatus("Saving\u2026", "saving");
      return request("PUT", api + "/draft", { code: text }, { keepalive }).then(() => {
        saving = false;
        if (pending === null) {
          dropLocal(localKey);
          showStatus("Draft saved", "saved");
        } else flush(false);
      }, (err) => {
        saving = false;
        if (pending === null) pending = text;
        if (err.status === 0 || err.status >= 500) {
          showStatus("Offline: draft kept in this browser", "offline");
          saveTimer = setTimeout(() => flush(false), 5e3);
        } else {
          showStatus("Draft not saved: " + err.message, "error");
        }
      });
    }
    function changed(text) {
      writeLocal(text);
      if (!canSave) return;
      pending = text;
      if (!saving) showStatus("Unsaved changes", "dirty");
      clearTimeout(saveTimer);
      saveTimer = setTimeout(() => flush(false), SAVE_DELAY_MS);
    }
    function initialCode(serverDraft) {
      let initial = serverDraft;
      const local = readLocal(localKey);
      let restored = local !== null && local !== initial;
      if (restored) initial = local;
      let adoptedAnon = false;
      if (canSave && userId !== "anon") {
        const anonKey = "torchdrill-draft:anon:" + slug;
        const anonCode = readLocal(anonKey);
        if (anonCode !== null && anonCode !== starter && anonCode !== initial) {
          initial = anonCode;
          adoptedAnon = true;
          restored = true;
        }
        if (anonCode !== null) dropLocal(anonKey);
      }
      return { code: initial, restored, adoptedAnon };
    }
    function announceRestored(opened) {
      if (!opened.restored || !canSave) return;
      changed(opened.code);
      showStatus(opened.adoptedAnon ? "Kept the code you wrote before signing in" : "Restored unsaved changes from this browser", "dirty");
    }
    window.addEventListener("pagehide", () => {
      if (pending !== null) flush(true);
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden" && pending !== null) flush(true);
    });
    return { changed, flush, initialCode, announceRestored, hasPending: () => pending !== null };
  }

  // src/problem/editor.js
  function openTextarea(textarea, host, doc, { onRun, onSubmit, onChange }) {
    host.hidden = true;
    textarea.hidden = false;
    textarea.value = doc;
    textarea.addEventListener("input", () => onChange(textarea.value));
    let escaped = false;
    textarea.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        e.preventDefault();
        (e.shiftKey ? onSubmit : onRun)();
        return;
      }
      if (e.key === "Escape") {
        escaped = true;
        return;
      }
      if (e.key === "Tab" && !e.shiftKey && !escaped) {
        e.preventDefault();
        textarea.setRangeText("    ", textarea.selectionStart, textarea.selectionEnd, "end");
        onChange(textarea.value);
      }
      escaped = false;
    });
    return {
      getCode: () => textarea.value,
      setCode: (text) => {
        textarea.value = text;
      },
      focus: () => textarea.focus(),
      fallback: true
    };
  }
  function openCodeMirror(textarea, host, doc, options) {
    host.hidden = false;
    const editor = window.TorchdrillEditor.create(host, { ...options, doc });
    textarea.hidden = true;
    textarea.removeAttribute("name");
    return editor;
  }
  function openEditor({ textarea, host, doc, onRun, onSubmit, onChange, extra }) {
    const options = { onRun, onSubmit, onChange, ...extra || {} };
    let impl = null;
    let completions = null;
    const upgraded = [];
    const facade = {
      getCode: () => impl.getCode(),
      setCode: (text) => impl.setCode(text),
      focus: () => impl.focus(),
      markError: (line, column2, message2) => {
        if (impl.markError) impl.markError(line, column2, message2);
      },
      clearError: () => {
        if (impl.clearError) impl.clearError();
      },
      configure: (settings) => {
        if (impl.configure) impl.configure(settings);
      },
      setCompletions: (data) => {
        completions = data;
        if (impl.setCompletions) impl.setCompletions(data);
      },
      get fallback() {
        return Boolean(impl.fallback);
      },
      /** Call `fn` once CodeMirror has taken over (at once if it already has). */
      onUpgrade: (fn) => {
        if (impl.fallback) upgraded.push(fn);
        else fn();
      }
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
      window.addEventListener("load", upgrade);
    }
    return facade;
  }

  // src/problem/replace.js
  function createReplacer({ editor, drafts }) {
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
    function replace(text, message2) {
      before = editor.getCode();
      set(text);
      if (!undoBar) return;
      if (undoText) undoText.textContent = message2;
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
    function edited() {
      if (!replacing && undoBar && !undoBar.hidden) {
        undoBar.hidden = true;
        before = null;
      }
    }
    return { replace, edited };
  }
  function setUpReset({ replacer, starter }) {
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
    confirmBar.addEventListener("keydown", (e) => {
      if (e.key === "Escape") close(true);
    });
    document.getElementById("reset-yes").addEventListener("click", () => {
      close(false);
      replacer.replace(starter, "Code reset to the starter.");
    });
  }

  // src/problem/progress.js
  var ORDER = ["queued", "running", "finished"];
  function createProgress(timeLimit) {
    const progress = document.getElementById("results-progress");
    const elapsedBox = document.getElementById("results-elapsed");
    let startedAt = 0;
    let ticker = null;
    function setStep(step) {
      const at = ORDER.indexOf(step);
      progress.dataset.step = step;
      progress.querySelectorAll("[data-step]").forEach((li) => {
        const i = ORDER.indexOf(li.dataset.step);
        li.className = i < at ? "done" : i === at ? "current" : "";
        if (i === at) li.setAttribute("aria-current", "step");
        else li.removeAttribute("aria-current");
      });
      const bar = progress.querySelector(".bar");
      bar.setAttribute("aria-valuetext", step === "queued" ? "Waiting for the judge" : step === "running" ? "Running your code" : "Finished");
    }
    function start() {
      progress.hidden = false;
      startedAt = Date.now();
      setStep("queued");
      clearInterval(ticker);
      const tick = () => {
        const s = (Date.now() - startedAt) / 1e3;
        elapsedBox.textContent = s.toFixed(1) + " s" + (timeLimit ? " (time limit " + timeLimit + " s)" : "");
      };
      tick();
      ticker = setInterval(tick, 200);
    }
    function stop(finished) {
      clearInterval(ticker);
      if (!finished) {
        progress.hidden = true;
        return;
      }
      setStep("finished");
      elapsedBox.textContent = "done in " + ((Date.now() - startedAt) / 1e3).toFixed(1) + " s";
    }
    return { setStep, start, stop };
  }

  // src/problem/markers.js
  function errorLocation(s) {
    if (typeof s.line === "number" && s.line > 0) {
      return { line: s.line, column: typeof s.column === "number" ? s.column : null, message: s.message || "" };
    }
    const cases = Array.isArray(s.cases) ? s.cases : [];
    for (const c of cases) {
      if (c.status !== "passed" && typeof c.line === "number" && c.line > 0) {
        return { line: c.line, column: null, message: c.message || "" };
      }
    }
    const texts = [s.message].concat(cases.filter((c) => c.status !== "passed").map((c) => c.message));
    for (const text of texts) {
      const found = /solution\.py, line (\d+)\)/.exec(text || "");
      if (found) return { line: parseInt(found[1], 10), column: null, message: text };
    }
    return null;
  }
  function createMarkers(editor) {
    function clear() {
      if (editor.clearError) editor.clearError();
    }
    function mark(s, messageBox) {
      const at = errorLocation(s);
      if (!at) return;
      if (editor.markError) editor.markError(at.line, at.column, at.message);
      const jump = el("button", "btn btn-ghost error-jump", "Show line " + at.line + (at.column ? ", column " + at.column : "") + " in the editor");
      jump.type = "button";
      jump.id = "error-jump";
      jump.addEventListener("click", () => {
        if (editor.markError) editor.markError(at.line, at.column, at.message);
        editor.focus();
      });
      messageBox.hidden = false;
      messageBox.appendChild(document.createTextNode("\n"));
      messageBox.appendChild(jump);
    }
    return { clear, mark };
  }

  // src/shared/diff.js
  var TOKEN = /[A-Za-z0-9_.+\-]+|\s+|[^A-Za-z0-9_.+\-\s]/g;
  function tokens(text) {
    return String(text).match(TOKEN) || [];
  }
  function common(a, b) {
    var keepA = new Array(a.length), keepB = new Array(b.length), i, j;
    if (a.length === b.length) {
      for (i = 0; i < a.length; i++) keepA[i] = keepB[i] = a[i] === b[i];
      return [keepA, keepB];
    }
    if (a.length * b.length > 4e6) {
      keepA.fill(true);
      keepB.fill(true);
      return [keepA, keepB];
    }
    var n = a.length, m = b.length, w = m + 1;
    var table = new Uint16Array((n + 1) * (m + 1));
    for (i = n - 1; i >= 0; i--) {
      for (j = m - 1; j >= 0; j--) {
        table[i * w + j] = a[i] === b[j] ? table[(i + 1) * w + j + 1] + 1 : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
      }
    }
    i = 0;
    j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) {
        keepA[i++] = true;
        keepB[j++] = true;
      } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) keepA[i++] = false;
      else keepB[j++] = false;
    }
    while (i < n) keepA[i++] = false;
    while (j < m) keepB[j++] = false;
    return [keepA, keepB];
  }
  function fill(pre, parts, keep) {
    pre.textContent = "";
    var plain = "";
    var flush = function() {
      if (plain) {
        pre.appendChild(document.createTextNode(plain));
        plain = "";
      }
    };
    parts.forEach(function(part, i) {
      if (keep[i] || /^\s+$/.test(part)) {
        plain += part;
        return;
      }
      flush();
      var mark = document.createElement("mark");
      mark.className = "diff";
      mark.textContent = part;
      pre.appendChild(mark);
    });
    flush();
  }
  function highlight(expectedPre, actualPre) {
    var a = tokens(expectedPre.textContent), b = tokens(actualPre.textContent);
    var keep = common(a, b);
    fill(expectedPre, a, keep[0]);
    fill(actualPre, b, keep[1]);
    return actualPre.querySelectorAll("mark.diff").length + expectedPre.querySelectorAll("mark.diff").length;
  }
  function column(label, text, cls) {
    var col = document.createElement("div");
    col.className = "compare-col " + cls;
    var head = document.createElement("span");
    head.className = "compare-label";
    head.textContent = label;
    var pre = document.createElement("pre");
    pre.textContent = text;
    col.appendChild(head);
    col.appendChild(pre);
    return col;
  }
  function compare(expected, actual, failed, labels) {
    var box = document.createElement("div");
    box.className = "compare";
    var left = column(labels ? labels[0] : "Expected", expected, "compare-expected");
    var right = column(labels ? labels[1] : "Your output", actual, "compare-actual");
    box.appendChild(left);
    box.appendChild(right);
    if (failed) {
      var flagged = highlight(left.querySelector("pre"), right.querySelector("pre"));
      if (flagged) {
        var note = document.createElement("p");
        note.className = "compare-note muted";
        note.textContent = "Entries that differ are highlighted.";
        box.appendChild(note);
      }
    }
    return box;
  }

  // src/shared/cases.js
  function message(c) {
    const box = el("pre", "case-message");
    if (typeof c.message_html === "string" && c.message_html) box.innerHTML = c.message_html;
    else box.textContent = c.message;
    return box;
  }
  function tryInput(text) {
    const row = el("div", "case-try");
    if (text.length <= 400) {
      row.appendChild(el("span", "case-input-label", "The failing input"));
      row.appendChild(el("pre", "case-input", text));
    } else {
      const fold = el("details", "case-input-fold");
      fold.appendChild(el("summary", null, "The failing input (" + text.length + " characters)"));
      const box = el("pre", "case-input", text);
      box.tabIndex = 0;
      box.setAttribute("aria-label", "The failing input");
      fold.appendChild(box);
      row.appendChild(fold);
    }
    if (document.getElementById("custom-input-text")) {
      const button = el("button", "btn btn-small try-input", "Try this input");
      button.type = "button";
      button.addEventListener("click", () => document.dispatchEvent(new CustomEvent("torchdrill:try-input", { detail: text })));
      row.appendChild(button);
    } else if (navigator.clipboard) {
      const button = el("button", "btn btn-small copy-input", "Copy this input");
      button.type = "button";
      button.addEventListener("click", () => {
        navigator.clipboard.writeText(text).then(() => {
          button.textContent = "Copied";
        }, () => {
        });
      });
      row.appendChild(button);
    }
    return row;
  }
  function renderCase(c) {
    const li = el("li", "case case-" + c.status);
    const head = el("div", "case-head");
    head.appendChild(el("span", "case-status", c.status.replace("_", " ")));
    head.appendChild(el("span", "case-name", c.label || (c.public ? c.name : "hidden test")));
    head.appendChild(el("span", "case-time muted", Math.round(c.time_ms || 0) + " ms"));
    li.appendChild(head);
    if (c.message) li.appendChild(message(c));
    const given = typeof c.try_input === "string" && c.try_input ? c.try_input : c.failure && typeof c.failure.input === "string" ? c.failure.input : "";
    if (given && c.status !== "passed") li.appendChild(tryInput(given));
    if (typeof c.traceback === "string" && c.traceback) {
      const tb = el("details", "traceback");
      tb.appendChild(el("summary", null, "Traceback (your code)" + (typeof c.line === "number" ? ", line " + c.line : "")));
      tb.appendChild(el("pre", null, c.traceback));
      li.appendChild(tb);
    }
    if (c.public) {
      const hasExpected = c.expected !== null && c.expected !== void 0;
      const hasActual = c.actual !== null && c.actual !== void 0;
      if (hasExpected && hasActual) {
        li.appendChild(compare(c.expected, c.actual, c.status !== "passed", c.labels));
      } else {
        if (hasExpected) li.appendChild(kv(c.labels ? c.labels[0] : "Expected", c.expected));
        if (hasActual) li.appendChild(kv(c.labels ? c.labels[1] : "Your output", c.actual));
      }
      if (c.stdout) li.appendChild(kv("Stdout", c.stdout));
    }
    return li;
  }
  var CUSTOM_LABELS = ["Reference output", "Your output"];
  function renderCases(list, view) {
    list.textContent = "";
    const labels = view.mode === "custom" ? CUSTOM_LABELS : null;
    (view.cases || []).forEach((c) => list.appendChild(renderCase(labels ? { ...c, labels } : c)));
  }

  // src/shared/words.js
  function count(n, noun, plural) {
    return n + " " + (n === 1 ? noun : plural || noun + "s");
  }
  function passedPhrase(passed, total) {
    if (passed === total) return total === 1 ? "The 1 case passed" : "All " + count(total, "case") + " passed";
    return passed + " of " + count(total, "case") + " passed";
  }

  // src/problem/results.js
  function foldPassed(list) {
    const passed = Array.from(list.querySelectorAll(":scope > li.case-passed"));
    if (!passed.length) return;
    const item = el("li", "case-fold");
    const fold = el("details", "passed-fold");
    const total = list.querySelectorAll(":scope > li.case").length;
    fold.appendChild(el("summary", null, passedPhrase(passed.length, total)));
    const inner = el("ol", "cases");
    passed.forEach((li) => inner.appendChild(li));
    fold.appendChild(inner);
    item.appendChild(fold);
    list.insertBefore(item, list.firstChild);
  }
  function createResults({ root, progress, markers, showVerdictTab, showCustomTab }) {
    const summary = document.getElementById("results-summary");
    const messageBox = document.getElementById("results-message");
    const caseList = document.getElementById("results-cases");
    const announcer = document.getElementById("verdict-announce");
    function announce(text) {
      if (!announcer) return;
      announcer.textContent = announcer.textContent === text ? text + "\xA0" : text;
    }
    function reveal() {
      if (showVerdictTab) showVerdictTab();
      summary.focus({ preventScroll: true });
      summary.scrollIntoView({ block: "nearest" });
    }
    function showMessage(text, kind, html, note) {
      messageBox.hidden = !text && !note;
      messageBox.textContent = "";
      if (typeof html === "string" && html) messageBox.innerHTML = html;
      else messageBox.textContent = text || "";
      if (note) messageBox.appendChild(document.createTextNode((text ? "\n" : "") + note));
      messageBox.className = "results-message" + (kind ? " " + kind : "");
    }
    function pending(text) {
      showMessage("");
      markers.clear();
      caseList.textContent = "";
      summary.textContent = text;
      summary.className = "muted pending";
    }
    function failed(message2) {
      summary.textContent = "Not judged";
      summary.className = "verdict v-error";
      showMessage(message2, "error");
      announce("Not judged: " + message2);
      reveal();
    }
    function celebrate(s) {
      if (s.verdict !== "accepted" || s.mode !== "submit") return;
      const markBox = document.getElementById("solved-mark");
      const tpl = document.getElementById("solved-mark-template");
      if (markBox && tpl) {
        markBox.textContent = "";
        markBox.appendChild(tpl.content.cloneNode(true));
      }
      if (root.dataset.nextUrl) {
        const p = el("p", "next-problem");
        p.id = "next-problem";
        p.appendChild(document.createTextNode("Solved! Next: "));
        const a = el("a", null, root.dataset.nextTitle || "the next problem");
        a.href = root.dataset.nextUrl;
        p.appendChild(a);
        caseList.parentNode.insertBefore(p, caseList);
      }
    }
    function render(s, restored) {
      if (s.status !== "finished" && restored) return;
      if (s.status !== "finished") {
        progress.setStep(s.status);
        summary.textContent = s.status === "queued" ? "Queued\u2026" : "Running\u2026";
        summary.className = "muted pending";
        return;
      }
      if (!restored) progress.stop(true);
      const old = document.getElementById("next-problem");
      if (old) old.remove();
      const label = s.verdict_label || s.verdict;
      const what = s.mode === "custom" ? "run with your input" : s.mode || "result";
      summary.textContent = (restored ? "Last " + what + ": " : s.mode === "custom" ? "Your input: " : "") + label + " \u2014 " + s.passed + "/" + s.total + " passed" + (s.time_ms ? " in " + Math.round(s.time_ms) + " ms" : "");
      summary.className = "verdict v-" + s.verdict;
      const note = s.verdict_explanation || "";
      showMessage(s.message, s.verdict === "accepted" ? "" : "error", s.message_html, note);
      renderCases(caseList, s);
      foldPassed(caseList);
      markers.mark(s, messageBox);
      const link = el("a", "submission-link", "Open submission #" + s.id);
      link.href = s.url;
      const li = el("li", "case-footer");
      li.appendChild(link);
      if (s.mode === "custom" && showCustomTab) {
        const back = el("button", "btn btn-ghost", "Edit my input");
        back.type = "button";
        back.id = "edit-my-input";
        back.addEventListener("click", () => showCustomTab(true));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(back);
      }
      caseList.appendChild(li);
      if (restored) return;
      celebrate(s);
      announce(summary.textContent + (document.getElementById("next-problem") ? ". Solved! A next problem is linked." : ""));
      reveal();
    }
    return { render, pending, failed, showMessage, isEmpty: () => caseList.childElementCount === 0 };
  }

  // src/problem/judge.js
  function follow(id, onUpdate, attempt = 0) {
    return request("GET", "/api/submissions/" + id + "?wait=true&timeout=1").then((s) => {
      onUpdate(s);
      if (s.status === "finished") return s;
      return follow(id, onUpdate, 0);
    }, (err) => {
      if (err.status === 0 && attempt < 5) {
        return new Promise((res) => setTimeout(res, 1e3 * (attempt + 1))).then(() => follow(id, onUpdate, attempt + 1));
      }
      throw err;
    });
  }
  function createJudge({ root, api, loggedIn, editor, drafts, results, progress, onFinished }) {
    const runBtn = document.getElementById("run-btn");
    const submitBtn = document.getElementById("submit-btn");
    let busy = false;
    function setBusy(on) {
      busy = on;
      [runBtn, submitBtn].forEach((b) => {
        if (b) b.disabled = on;
      });
      root.classList.toggle("is-busy", on);
      document.getElementById("results").setAttribute("aria-busy", on ? "true" : "false");
    }
    function send(payload, sending, show, fail) {
      if (busy) return Promise.resolve(null);
      if (!loggedIn) {
        results.showMessage("Sign up or log in to run and submit your code; what you typed is kept.", "error");
        return Promise.resolve(null);
      }
      if (!runBtn) return Promise.resolve(null);
      const render = show || ((s) => results.render(s));
      if (drafts.hasPending()) drafts.flush(false);
      setBusy(true);
      results.pending(sending);
      progress.start();
      return request("POST", api + "/submissions", { code: editor.getCode(), ...payload }).then((s) => {
        render(s);
        return s.status === "finished" ? s : follow(s.id, render);
      }).then((s) => {
        onFinished(s);
        return s;
      }).catch((err) => {
        progress.stop(false);
        (fail || results.failed)(err.message);
        throw err;
      }).finally(() => setBusy(false));
    }
    function start(mode) {
      send({ mode }, mode === "run" ? "Sending your run\u2026" : "Sending your submission\u2026").catch(() => {
      });
    }
    if (runBtn) runBtn.addEventListener("click", () => start("run"));
    if (submitBtn) submitBtn.addEventListener("click", () => start("submit"));
    document.addEventListener("keydown", (e) => {
      if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.key !== "Enter") return;
      e.preventDefault();
      start(e.shiftKey ? "submit" : "run");
    });
    return { start, send, isBusy: () => busy };
  }

  // src/problem/history.js
  function createHistory({ api, replacer }) {
    const list = document.getElementById("history-list");
    const compareBar = document.getElementById("history-compare");
    const compareText = document.getElementById("history-compare-text");
    const compareLink = document.getElementById("history-compare-link");
    const olderBtn = document.getElementById("history-older");
    const olderStatus = document.getElementById("history-status");
    const OLDER = "Older submissions";
    let picked = [];
    let generation = 0;
    function showCompare() {
      if (!compareBar) return;
      list.querySelectorAll("input.pick").forEach((box) => {
        box.checked = picked.includes(box.value);
      });
      compareBar.hidden = picked.length === 0;
      compareLink.hidden = picked.length !== 2;
      if (picked.length === 2) {
        const [a, b] = picked.map(Number).sort((x, y) => x - y);
        compareText.textContent = "Compare #" + a + " with #" + b + ":";
        compareLink.textContent = "Show the line diff";
        compareLink.href = "/submissions/" + a + "/compare/" + b;
      } else if (picked.length === 1) {
        compareText.textContent = "Pick one more submission to compare with #" + picked[0] + ".";
      }
    }
    function load(id, button) {
      button.disabled = true;
      request("GET", "/api/submissions/" + encodeURIComponent(id) + "/code").then((body) => {
        replacer.replace(body.code, "Loaded the code of submission #" + id + ".");
      }, (err) => {
        button.title = err.message;
      }).finally(() => {
        button.disabled = false;
      });
    }
    function decorate(li) {
      const id = li.dataset.id;
      if (!id || li.querySelector(".history-actions")) return;
      const actions = el("span", "history-actions");
      const loadBtn = el("button", "btn btn-ghost load-btn", "Load");
      loadBtn.type = "button";
      loadBtn.setAttribute("aria-label", "Load the code of #" + id + " into the editor");
      loadBtn.addEventListener("click", () => load(id, loadBtn));
      const label = el("label", "pick-label");
      const box = el("input", "pick");
      box.type = "checkbox";
      box.value = id;
      box.checked = picked.includes(id);
      box.addEventListener("change", () => {
        picked = picked.filter((p) => p !== id);
        if (box.checked) picked.push(id);
        if (picked.length > 2) picked = picked.slice(-2);
        showCompare();
      });
      label.appendChild(box);
      label.appendChild(el("span", "visually-hidden", "Compare #" + id));
      label.appendChild(el("span", "muted", "compare"));
      actions.appendChild(loadBtn);
      actions.appendChild(label);
      li.appendChild(actions);
    }
    function row(s) {
      const li = el("li");
      li.dataset.id = s.id;
      const meta = el("span", "history-meta");
      const a = el("a", null, "#" + s.id);
      a.href = s.url;
      meta.appendChild(a);
      meta.appendChild(el("span", "mode", s.mode));
      meta.appendChild(el("span", "verdict v-" + (s.verdict || s.status), s.verdict_label || s.status));
      if (s.total !== null) meta.appendChild(el("span", "muted", s.passed + "/" + s.total));
      const at = el("time", "muted", String(s.created_at).slice(0, 19).replace("T", " ") + " UTC");
      at.dateTime = s.created_at;
      meta.appendChild(at);
      li.appendChild(meta);
      decorate(li);
      return li;
    }
    function setOlder(next) {
      if (!olderBtn) return;
      olderBtn.hidden = !next;
      olderBtn.textContent = OLDER;
      if (next) olderBtn.dataset.next = next;
      else delete olderBtn.dataset.next;
    }
    function say(text, failed) {
      if (!olderStatus) return;
      olderStatus.textContent = text;
      olderStatus.classList.toggle("error", Boolean(failed));
    }
    function shownIds() {
      return new Set(Array.from(list.querySelectorAll("li[data-id]"), (li) => li.dataset.id));
    }
    function loadOlder() {
      const next = olderBtn.dataset.next;
      if (!next || olderBtn.getAttribute("aria-disabled") === "true") return;
      olderBtn.setAttribute("aria-disabled", "true");
      olderBtn.textContent = "Loading older submissions\u2026";
      say("");
      const asked = generation;
      request("GET", next).then((data) => {
        if (asked !== generation) return;
        const shown = shownIds();
        const added = data.submissions.filter((s) => !shown.has(String(s.id))).map(row);
        added.forEach((li) => list.appendChild(li));
        setOlder(data.next);
        const total = list.querySelectorAll("li[data-id]").length;
        say(data.next ? added.length + " older submissions added." : "All " + total + " of your submissions are shown.");
        if (added.length) added[0].querySelector("a").focus();
        else if (!data.next && olderStatus) olderStatus.focus();
      }, (err) => {
        if (asked !== generation) return;
        olderBtn.textContent = "Try again: " + OLDER.toLowerCase();
        say("Could not load older submissions. " + err.message, true);
      }).finally(() => {
        olderBtn.removeAttribute("aria-disabled");
      });
    }
    function refresh() {
      if (!list) return Promise.resolve();
      generation += 1;
      return request("GET", api + "/submissions").then((data) => {
        list.textContent = "";
        data.submissions.forEach((s) => list.appendChild(row(s)));
        if (!data.submissions.length) list.appendChild(el("li", "muted empty-history", "No submissions yet."));
        picked = picked.filter((id) => data.submissions.some((s) => String(s.id) === id));
        setOlder(data.next);
        say("");
        showCompare();
      }).catch(() => {
      });
    }
    if (list) list.querySelectorAll("li[data-id]").forEach(decorate);
    if (list && olderBtn) olderBtn.addEventListener("click", loadOlder);
    return { refresh };
  }

  // src/problem/custom.js
  function formatArguments(args) {
    const lines = Object.keys(args).map((name) => "  " + JSON.stringify(name) + ": " + JSON.stringify(args[name]));
    return "{\n" + lines.join(",\n") + "\n}";
  }
  function setUpCustomInput({ judge, selectResultsTab }) {
    const box = document.getElementById("custom-input-text");
    const runBtn = document.getElementById("custom-run-btn");
    if (!box || !runBtn) return;
    const errorBox = document.getElementById("custom-input-error");
    const tabBar = document.getElementById("input-tabs");
    const addBtn = document.getElementById("custom-add-btn");
    const removeBtn = document.getElementById("custom-remove-btn");
    const example = embedded("example-input");
    const inputs = [box.value];
    let current = 0;
    function showError(text) {
      errorBox.hidden = !text;
      errorBox.textContent = text || "";
      box.setAttribute("aria-invalid", text ? "true" : "false");
    }
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
      inputs.push(box.value);
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
    box.addEventListener("input", () => {
      inputs[current] = box.value;
    });
    runBtn.addEventListener("click", () => {
      showError("");
      const refused = (message2) => {
        showError(message2);
        if (selectResultsTab) selectResultsTab(false);
        box.focus();
      };
      judge.send({ mode: "custom", input_text: box.value }, "Running your input\u2026", void 0, refused).catch(() => {
      });
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
    document.addEventListener("torchdrill:try-input", (e) => {
      if (typeof e.detail !== "string") return;
      inputs[current] = box.value;
      inputs.push(e.detail);
      pick(inputs.length - 1, false);
      if (selectResultsTab) selectResultsTab(false, true);
      else box.focus();
    });
    box.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        e.preventDefault();
        e.stopPropagation();
        runBtn.click();
      }
    });
    drawTabs();
  }

  // src/problem/settings.js
  var KEY = "torchdrill-editor-settings";
  var DEFAULTS = { fontSize: 14, lineWrap: false, vim: false };
  var FONT_SIZES = [12, 13, 14, 15, 16, 18, 20];
  function loadSettings() {
    try {
      const saved = JSON.parse(localStorage.getItem(KEY) || "{}");
      return {
        fontSize: FONT_SIZES.includes(saved.fontSize) ? saved.fontSize : DEFAULTS.fontSize,
        lineWrap: saved.lineWrap === true,
        vim: saved.vim === true
      };
    } catch (e) {
      return { ...DEFAULTS };
    }
  }
  function save(settings) {
    try {
      localStorage.setItem(KEY, JSON.stringify(settings));
    } catch (e) {
    }
  }
  function applyToTextarea(textarea, settings) {
    textarea.style.fontSize = settings.fontSize + "px";
    textarea.wrap = settings.lineWrap ? "soft" : "off";
  }
  function setUpSettings({ editor, textarea, settings }) {
    const fontSize = document.getElementById("setting-font-size");
    const wrap = document.getElementById("setting-wrap");
    const vimBox = document.getElementById("setting-vim");
    const panel = document.getElementById("editor-settings");
    if (!fontSize || !wrap || !vimBox || !panel) return;
    fontSize.value = String(settings.fontSize);
    wrap.checked = settings.lineWrap;
    vimBox.checked = settings.vim;
    if (editor.fallback) {
      vimBox.disabled = true;
      applyToTextarea(textarea, settings);
    }
    if (editor.onUpgrade) editor.onUpgrade(() => {
      vimBox.disabled = false;
    });
    panel.hidden = false;
    const changed = () => {
      settings.fontSize = parseInt(fontSize.value, 10) || DEFAULTS.fontSize;
      settings.lineWrap = wrap.checked;
      settings.vim = vimBox.checked && !editor.fallback;
      save(settings);
      if (editor.fallback) applyToTextarea(textarea, settings);
      else editor.configure(settings);
    };
    [fontSize, wrap, vimBox].forEach((control) => control.addEventListener("change", changed));
  }
  function loadCompletions(editor, url) {
    if (!editor.setCompletions) return;
    fetch(url || "/static/torch-completions.json", { credentials: "same-origin" }).then((r) => r.ok ? r.json() : Promise.reject(r.status)).then((data) => editor.setCompletions(data)).catch(() => {
    });
  }

  // src/problem/split.js
  var KEY2 = "torchdrill-split";
  var MIN = 25;
  var MAX = 75;
  var STEP = 2;
  function setUpSplit(root) {
    const handle = document.getElementById("pane-splitter");
    if (!handle || !document.getElementById("editor")) return;
    const clamp = (v) => Math.min(MAX, Math.max(MIN, Math.round(v)));
    let value = 50;
    try {
      value = clamp(parseFloat(localStorage.getItem(KEY2) || "50") || 50);
    } catch (e) {
      value = 50;
    }
    function apply(v, remember) {
      value = clamp(v);
      root.style.setProperty("--split-a", value + "fr");
      root.style.setProperty("--split-b", 100 - value + "fr");
      handle.setAttribute("aria-valuenow", String(value));
      handle.setAttribute("aria-valuetext", "Statement " + value + "%, editor " + (100 - value) + "%");
      if (remember) {
        try {
          localStorage.setItem(KEY2, String(value));
        } catch (e) {
        }
      }
    }
    handle.addEventListener("keydown", (e) => {
      const moves = { ArrowLeft: value - STEP, ArrowRight: value + STEP, Home: MIN, End: MAX };
      if (!(e.key in moves)) return;
      e.preventDefault();
      apply(moves[e.key], true);
    });
    handle.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      handle.setPointerCapture(e.pointerId);
      handle.classList.add("dragging");
      const box = root.getBoundingClientRect();
      const move = (ev) => apply((ev.clientX - box.left) / box.width * 100, false);
      const up = () => {
        handle.classList.remove("dragging");
        handle.removeEventListener("pointermove", move);
        apply(value, true);
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", up, { once: true });
    });
    handle.hidden = false;
    root.classList.add("has-split");
    apply(value, false);
  }

  // src/problem/shortcuts.js
  function setUpShortcutsHelp() {
    const button = document.getElementById("shortcuts-btn");
    const help = document.getElementById("shortcuts-help");
    if (!button || !help) return;
    const toggle = (open) => {
      help.hidden = !open;
      button.setAttribute("aria-expanded", open ? "true" : "false");
    };
    button.addEventListener("click", () => toggle(help.hidden));
    help.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        toggle(false);
        button.focus();
      }
    });
    button.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !help.hidden) {
        e.preventDefault();
        toggle(false);
      }
    });
  }

  // src/problem/counters.js
  function refreshCounters(slug) {
    const box = document.getElementById("acceptance");
    if (!box) return;
    fetch("/problems/" + encodeURIComponent(slug), { credentials: "same-origin", headers: { Accept: "text/html" } }).then((r) => r.ok ? r.text() : Promise.reject(r.status)).then((html) => {
      const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("acceptance");
      if (fresh) box.replaceChildren(...Array.from(fresh.childNodes).map((n) => document.importNode(n, true)));
    }).catch(() => {
    });
  }

  // src/problem/main.js
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
    if (!textarea || !host) return;
    const starter = embedded("starter-code") || "";
    const canSave = loggedIn && !!document.getElementById("run-btn");
    const drafts = createDrafts({ api, userId, slug, canSave, starter });
    const opened = drafts.initialCode(textarea.value);
    let judge = null;
    let replacer = null;
    const settings = loadSettings();
    const editor = openEditor({
      textarea,
      host,
      doc: opened.code,
      onRun: () => judge.start("run"),
      onSubmit: () => judge.start("submit"),
      onChange: (text) => {
        drafts.changed(text);
        if (replacer) replacer.edited();
      },
      extra: { settings, describedBy: "editor-hint" }
    });
    setUpShortcutsHelp();
    setUpSettings({ editor, textarea, settings });
    loadCompletions(editor, root.dataset.completionsUrl);
    drafts.announceRestored(opened);
    replacer = createReplacer({ editor, drafts });
    setUpReset({ replacer, starter });
    const progress = createProgress(timeLimit);
    const markers = createMarkers(editor);
    const resultsTabs = document.querySelector(".results-tabs");
    const selectTab = resultsTabs ? setUpTablist(resultsTabs) : null;
    const selectResultsTab = (verdict, focus) => {
      if (!selectTab) return;
      const id = verdict ? "results-tab-verdict" : "results-tab-custom";
      selectTab(id);
      if (focus) document.getElementById(id === "results-tab-custom" ? "custom-input-text" : id).focus();
    };
    const results = createResults({
      root,
      progress,
      markers,
      showVerdictTab: () => selectResultsTab(true, false),
      showCustomTab: selectTab ? () => selectResultsTab(false, true) : null
    });
    const history = createHistory({ api, replacer });
    const onFinished = (s) => {
      history.refresh();
      const lesson = document.getElementById("learn-solution");
      if (lesson && s && s.mode !== "custom") lesson.open = true;
      if (s && s.mode === "submit") refreshCounters(slug);
    };
    judge = createJudge({ root, api, loggedIn, editor, drafts, results, progress, onFinished });
    setUpCustomInput({ judge, selectResultsTab });
    if (root.dataset.lastSubmission && loggedIn) {
      request("GET", "/api/submissions/" + encodeURIComponent(root.dataset.lastSubmission)).then((s) => {
        if (!judge.isBusy() && results.isEmpty()) results.render(s, true);
      }).catch(() => {
      });
    }
  }
  main();
})();
