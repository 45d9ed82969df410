// Problem page: tabs, editor, drafts saved on the server as you type, Run/Submit with live progress.
// Nothing here ever replaces the learner's code because of an error: errors go to the results panel.
(function () {
  "use strict";
  var root = document.getElementById("problem");
  if (!root) return;
  var slug = root.dataset.slug;
  var loggedIn = root.dataset.loggedIn === "true";
  var userId = root.dataset.user || "anon";
  var timeLimit = parseFloat(root.dataset.timeLimit || "0");
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var api = "/api/problems/" + encodeURIComponent(slug);

  // ---- tabs (without JS both panels are simply shown one after the other) ----
  var tablist = root.querySelector(".tabs");
  if (tablist) {
    var tabs = Array.prototype.slice.call(tablist.querySelectorAll('[role="tab"]'));
    var select = function (tab) {
      tabs.forEach(function (t) {
        var on = t === tab;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
      });
    };
    tabs.forEach(function (tab, i) {
      tab.addEventListener("click", function () { select(tab); });
      tab.addEventListener("keydown", function (e) {
        var next = null;
        if (e.key === "ArrowRight") next = tabs[(i + 1) % tabs.length];
        if (e.key === "ArrowLeft") next = tabs[(i - 1 + tabs.length) % tabs.length];
        if (e.key === "Home") next = tabs[0];
        if (e.key === "End") next = tabs[tabs.length - 1];
        if (next) { e.preventDefault(); select(next); next.focus(); }
      });
    });
    tablist.hidden = false;
    root.classList.add("has-tabs");
    root.querySelectorAll(".learn-title").forEach(function (h) { h.classList.add("visually-hidden"); });
    select(location.hash === "#learn" ? tabs[1] : tabs[0]);
  }

  // ---- narrow screens: a Problem/Code switch instead of the statement above the editor ----
  var paneSwitch = document.getElementById("pane-switch");
  if (paneSwitch && document.getElementById("editor")) {
    var paneButtons = Array.prototype.slice.call(paneSwitch.querySelectorAll("[data-pane]"));
    var paneKey = "torchdrill-pane";
    var showPane = function (name, remember) {
      root.dataset.pane = name;
      paneButtons.forEach(function (b) { b.setAttribute("aria-pressed", b.dataset.pane === name ? "true" : "false"); });
      if (remember) { try { sessionStorage.setItem(paneKey, name); } catch (e) { /* storage off */ } }
    };
    paneButtons.forEach(function (b) { b.addEventListener("click", function () { showPane(b.dataset.pane, true); }); });
    paneSwitch.hidden = false;
    root.classList.add("has-pane-switch");
    var savedPane = null;
    try { savedPane = sessionStorage.getItem(paneKey); } catch (e) { savedPane = null; }
    showPane(savedPane === "code" ? "code" : "problem", false);
  }

  // ---- small helpers ----
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function errorText(status, body) {
    if (body && body.detail) return body.detail;
    if (status === 0) return "Could not reach the server. Check your connection; your code is still here.";
    return "The request failed (HTTP " + status + "). Your code is still here; try again.";
  }
  function request(method, url, payload, extra) {
    var opts = { method: method, headers: { Accept: "application/json", "X-CSRF-Token": csrf }, credentials: "same-origin" };
    if (payload !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(payload);
    }
    if (extra && extra.keepalive) opts.keepalive = true;
    return fetch(url, opts).then(
      function (r) {
        return r.json().catch(function () { return null; }).then(function (body) {
          if (!r.ok) { var err = new Error(errorText(r.status, body)); err.status = r.status; err.body = body; throw err; }
          return body;
        });
      },
      function () { var err = new Error(errorText(0)); err.status = 0; throw err; },
    );
  }

  // ---- editor ----
  var textarea = document.getElementById("code");
  var host = document.getElementById("editor");
  if (!textarea || !host) return; // locked problem: no editor
  var starterNode = document.getElementById("starter-code");
  var starter = starterNode ? JSON.parse(starterNode.textContent) : "";
  var editor = null;
  var getCode = function () { return editor ? editor.getCode() : textarea.value; };
  var setCode = function (text) { if (editor) editor.setCode(text); else textarea.value = text; };

  // ---- drafts: the server keeps one per user and problem; this browser keeps a copy until it is saved ----
  var localKey = "torchdrill-draft:" + userId + ":" + slug;
  var draftStatus = document.getElementById("draft-status");
  var canSave = loggedIn && !!document.getElementById("run-btn");
  var pending = null; // text waiting to be saved
  var saving = false;
  var saveTimer = null;
  var SAVE_DELAY_MS = 700;

  function readLocal() {
    try { var raw = localStorage.getItem(localKey); return raw === null ? null : JSON.parse(raw).code; } catch (e) { return null; }
  }
  function writeLocal(text) {
    try { localStorage.setItem(localKey, JSON.stringify({ code: text, at: Date.now() })); } catch (e) { /* storage off */ }
  }
  function dropLocal() { try { localStorage.removeItem(localKey); } catch (e) { /* storage off */ } }
  function showDraftStatus(text, state) {
    if (!draftStatus) return;
    draftStatus.textContent = text;
    draftStatus.dataset.state = state;
  }
  function flushDraft(keepalive) {
    clearTimeout(saveTimer);
    if (pending === null || saving) return Promise.resolve();
    var text = pending;
    pending = null;
    saving = true;
    showDraftStatus("Saving…", "saving");
    return request("PUT", api + "/draft", { code: text }, { keepalive: keepalive }).then(function () {
      saving = false;
      if (pending === null) { dropLocal(); showDraftStatus("Draft saved", "saved"); }
      else flushDraft(false); // typed while saving
    }, function (err) {
      saving = false;
      if (pending === null) pending = text;
      if (err.status === 0 || err.status >= 500) {
        showDraftStatus("Offline: draft kept in this browser", "offline");
        saveTimer = setTimeout(function () { flushDraft(false); }, 5000);
      } else {
        showDraftStatus("Draft not saved: " + err.message, "error");
      }
    });
  }
  function draftChanged(text) {
    writeLocal(text);
    if (!canSave) return;
    pending = text;
    if (!saving) showDraftStatus("Unsaved changes", "dirty");
    clearTimeout(saveTimer);
    saveTimer = setTimeout(function () { flushDraft(false); }, SAVE_DELAY_MS);
  }
  // The page renders the server's draft; an unsaved copy left in this browser (offline, closed tab) wins.
  var initial = textarea.value;
  var local = readLocal();
  var restoredLocal = local !== null && local !== initial;
  if (restoredLocal) initial = local;
  // Code typed while signed out (kept under the "anon" key) follows the learner into their account:
  // after sign-up or log-in it becomes their server draft, once, and leaves the anonymous slot.
  var adoptedAnon = false;
  if (canSave && userId !== "anon") {
    var anonKey = "torchdrill-draft:anon:" + slug;
    var anonCode = null;
    try { var rawAnon = localStorage.getItem(anonKey); anonCode = rawAnon === null ? null : JSON.parse(rawAnon).code; } catch (e) { anonCode = null; }
    if (anonCode !== null && anonCode !== starter && anonCode !== initial) { initial = anonCode; adoptedAnon = true; restoredLocal = true; }
    if (anonCode !== null) { try { localStorage.removeItem(anonKey); } catch (e) { /* storage off */ } }
  }
  var onEdit = function () {}; // set by the reset/undo logic below

  if (window.TorchdrillEditor) {
    editor = window.TorchdrillEditor.create(host, {
      doc: initial,
      onRun: function () { start("run"); },
      onSubmit: function () { start("submit"); },
      onChange: function (text) { draftChanged(text); onEdit(); },
    });
    textarea.hidden = true;
    textarea.removeAttribute("name");
  } else {
    host.hidden = true;
    textarea.value = initial;
    textarea.addEventListener("input", function () { draftChanged(textarea.value); onEdit(); });
    var escaped = false; // Esc then Tab leaves the textarea, as in the real editor
    textarea.addEventListener("keydown", function (e) {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); start(e.shiftKey ? "submit" : "run"); return; }
      if (e.key === "Escape") { escaped = true; return; }
      if (e.key === "Tab" && !e.shiftKey && !escaped) {
        e.preventDefault();
        var s = textarea.selectionStart;
        textarea.setRangeText("    ", s, textarea.selectionEnd, "end");
        draftChanged(textarea.value);
      }
      escaped = false;
    });
  }
  if (restoredLocal && canSave) {
    draftChanged(initial);
    showDraftStatus(adoptedAnon ? "Kept the code you wrote before signing in" : "Restored unsaved changes from this browser", "dirty");
  }
  window.addEventListener("pagehide", function () { if (pending !== null) flushDraft(true); });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden" && pending !== null) flushDraft(true);
  });

  // ---- reset to starter: confirm first, undo afterwards ----
  var resetBtn = document.getElementById("reset-btn");
  var confirmBar = document.getElementById("reset-confirm");
  var undoBar = document.getElementById("reset-undo");
  var beforeReset = null;
  var resetting = false;
  function closeConfirm(focusBack) {
    confirmBar.hidden = true;
    resetBtn.setAttribute("aria-expanded", "false");
    if (focusBack) resetBtn.focus();
  }
  onEdit = function () { if (!resetting && undoBar && !undoBar.hidden) { undoBar.hidden = true; beforeReset = null; } };
  if (resetBtn && confirmBar && undoBar) {
    resetBtn.addEventListener("click", function () {
      confirmBar.hidden = false;
      resetBtn.setAttribute("aria-expanded", "true");
      document.getElementById("reset-yes").focus();
    });
    document.getElementById("reset-no").addEventListener("click", function () { closeConfirm(true); });
    confirmBar.addEventListener("keydown", function (e) { if (e.key === "Escape") closeConfirm(true); });
    document.getElementById("reset-yes").addEventListener("click", function () {
      beforeReset = getCode();
      resetting = true;
      setCode(starter);
      draftChanged(starter);
      resetting = false;
      closeConfirm(false);
      undoBar.hidden = false;
      document.getElementById("undo-reset").focus();
    });
    document.getElementById("undo-reset").addEventListener("click", function () {
      if (beforeReset === null) return;
      resetting = true;
      setCode(beforeReset);
      draftChanged(beforeReset);
      resetting = false;
      beforeReset = null;
      undoBar.hidden = true;
      if (editor) editor.focus(); else textarea.focus();
    });
  }

  // ---- results panel ----
  var summary = document.getElementById("results-summary");
  var messageBox = document.getElementById("results-message");
  var caseList = document.getElementById("results-cases");
  var progress = document.getElementById("results-progress");
  var elapsedBox = document.getElementById("results-elapsed");
  var runBtn = document.getElementById("run-btn");
  var submitBtn = document.getElementById("submit-btn");
  var busy = false;
  var startedAt = 0;
  var ticker = null;

  function showMessage(text, kind) {
    messageBox.hidden = !text;
    messageBox.textContent = text || "";
    messageBox.className = "results-message" + (kind ? " " + kind : "");
  }
  function setBusy(on) {
    busy = on;
    [runBtn, submitBtn].forEach(function (b) { if (b) b.disabled = on; });
    root.classList.toggle("is-busy", on);
    document.getElementById("results").setAttribute("aria-busy", on ? "true" : "false");
  }
  function setStep(step) {
    var order = ["queued", "running", "finished"];
    var at = order.indexOf(step);
    progress.dataset.step = step;
    progress.querySelectorAll("[data-step]").forEach(function (li) {
      var i = order.indexOf(li.dataset.step);
      li.className = i < at ? "done" : i === at ? "current" : "";
      if (i === at) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    });
    var bar = progress.querySelector(".bar");
    bar.setAttribute("aria-valuetext", step === "queued" ? "Waiting for the judge" : step === "running" ? "Running your code" : "Finished");
  }
  function startProgress() {
    progress.hidden = false;
    startedAt = Date.now();
    setStep("queued");
    clearInterval(ticker);
    var tick = function () {
      var s = (Date.now() - startedAt) / 1000;
      elapsedBox.textContent = s.toFixed(1) + " s" + (timeLimit ? " (time limit " + timeLimit + " s)" : "");
    };
    tick();
    ticker = setInterval(tick, 200);
  }
  function stopProgress(finished) {
    clearInterval(ticker);
    if (!finished) { progress.hidden = true; return; }
    setStep("finished");
    elapsedBox.textContent = "done in " + ((Date.now() - startedAt) / 1000).toFixed(1) + " s";
  }
  function renderCase(c) {
    var li = el("li", "case case-" + c.status);
    var head = el("div", "case-head");
    head.appendChild(el("span", "case-status", c.status.replace("_", " ")));
    head.appendChild(el("span", "case-name", c.public ? c.name : "hidden test"));
    head.appendChild(el("span", "case-time muted", Math.round(c.time_ms || 0) + " ms"));
    li.appendChild(head);
    if (c.message) li.appendChild(el("pre", "case-message", c.message));
    if (typeof c.traceback === "string" && c.traceback) {
      var tb = el("details", "traceback");
      tb.appendChild(el("summary", null, "Traceback (your code)" + (typeof c.line === "number" ? ", line " + c.line : "")));
      tb.appendChild(el("pre", null, c.traceback));
      li.appendChild(tb);
    }
    if (c.public) {
      var hasExpected = c.expected !== null && c.expected !== undefined;
      var hasActual = c.actual !== null && c.actual !== undefined;
      if (hasExpected && hasActual && window.TorchdrillDiff) {
        li.appendChild(window.TorchdrillDiff.compare(c.expected, c.actual, c.status !== "passed"));
      } else {
        if (hasExpected) li.appendChild(kv("Expected", c.expected));
        if (hasActual) li.appendChild(kv("Your output", c.actual));
      }
      if (c.stdout) li.appendChild(kv("Stdout", c.stdout));
    }
    return li;
  }
  function kv(label, value) {
    var row = el("div", "kv");
    row.appendChild(el("span", null, label));
    row.appendChild(el("pre", null, value));
    return row;
  }
  // ---- the failing line in the editor (fields from the judge; absent on older servers) ----
  function errorLocation(s) {
    if (typeof s.line === "number" && s.line > 0) {
      return { line: s.line, column: typeof s.column === "number" ? s.column : null, message: s.message || "" };
    }
    var cases = Array.isArray(s.cases) ? s.cases : [];
    for (var i = 0; i < cases.length; i++) {
      var c = cases[i];
      if (c.status !== "passed" && typeof c.line === "number" && c.line > 0) {
        return { line: c.line, column: null, message: c.message || "" };
      }
    }
    // Older judges only name the line in the message: "... (solution.py, line 8)".
    var texts = [s.message].concat(cases.filter(function (c) { return c.status !== "passed"; }).map(function (c) { return c.message; }));
    for (var j = 0; j < texts.length; j++) {
      var found = /solution\.py, line (\d+)\)/.exec(texts[j] || "");
      if (found) return { line: parseInt(found[1], 10), column: null, message: texts[j] };
    }
    return null;
  }
  function clearErrorMark() { if (editor && editor.clearError) editor.clearError(); }
  function markErrorLine(s) {
    var at = errorLocation(s);
    if (!at) return;
    if (editor && editor.markError) editor.markError(at.line, at.column, at.message);
    var jump = el("button", "btn btn-ghost error-jump", "Show line " + at.line + (at.column ? ", column " + at.column : "") + " in the editor");
    jump.type = "button";
    jump.id = "error-jump";
    jump.addEventListener("click", function () {
      if (editor && editor.markError) { editor.markError(at.line, at.column, at.message); editor.focus(); } else textarea.focus();
    });
    messageBox.hidden = false;
    messageBox.appendChild(document.createTextNode("\n"));
    messageBox.appendChild(jump);
  }
  // ---- after Accepted: the Solved badge at once, and where to go next ----
  function celebrate(s) {
    if (s.verdict !== "accepted" || s.mode !== "submit") return;
    var markBox = document.getElementById("solved-mark");
    var tpl = document.getElementById("solved-mark-template");
    if (markBox && tpl) { markBox.textContent = ""; markBox.appendChild(tpl.content.cloneNode(true)); }
    if (root.dataset.nextUrl) {
      var p = el("p", "next-problem");
      p.id = "next-problem";
      p.appendChild(document.createTextNode("Solved! Next: "));
      var a = el("a", null, root.dataset.nextTitle || "the next problem");
      a.href = root.dataset.nextUrl;
      p.appendChild(a);
      caseList.parentNode.insertBefore(p, caseList);
    }
  }
  function renderSubmission(s, restored) {
    if (s.status !== "finished" && restored) return;
    if (s.status !== "finished") {
      setStep(s.status);
      summary.textContent = s.status === "queued" ? "Queued…" : "Running…";
      summary.className = "muted pending";
      return;
    }
    if (!restored) stopProgress(true);
    var old = document.getElementById("next-problem");
    if (old) old.remove();
    var label = s.verdict_label || s.verdict;
    summary.textContent = (restored ? "Last " + (s.mode || "result") + ": " : "") + label + " — " + s.passed + "/" + s.total + " passed" +
      (s.time_ms ? " in " + Math.round(s.time_ms) + " ms" : "");
    summary.className = "verdict v-" + s.verdict;
    var note = s.verdict_explanation || "";  // the one explanation per verdict: runner/verdict.py
    showMessage([s.message, note].filter(Boolean).join("\n"), s.verdict === "accepted" ? "" : "error");
    caseList.textContent = "";
    (s.cases || []).forEach(function (c) { caseList.appendChild(renderCase(c)); });
    markErrorLine(s);
    var link = el("a", "submission-link", "Open submission #" + s.id);
    link.href = s.url;
    var li = el("li", "case-footer");
    li.appendChild(link);
    caseList.appendChild(li);
    if (!restored) celebrate(s);
  }
  // Light polling: each request waits up to a second on the server, so "running" shows as soon as
  // the judge starts and the verdict arrives the moment it is recorded.
  function poll(id, attempt) {
    return request("GET", "/api/submissions/" + id + "?wait=true&timeout=1").then(function (s) {
      renderSubmission(s);
      if (s.status === "finished") return s;
      return poll(id, 0);
    }, function (err) {
      if (err.status === 0 && attempt < 5) {
        return new Promise(function (res) { setTimeout(res, 1000 * (attempt + 1)); }).then(function () { return poll(id, attempt + 1); });
      }
      throw err;
    });
  }
  function start(mode) {
    if (busy) return;
    if (!loggedIn) { showMessage("Sign up or log in to run and submit your code; what you typed is kept.", "error"); return; }
    if (!runBtn) return;
    var code = getCode();
    if (pending !== null) flushDraft(false);
    setBusy(true);
    showMessage("");
    clearErrorMark();
    caseList.textContent = "";
    summary.textContent = mode === "run" ? "Sending your run…" : "Sending your submission…";
    summary.className = "muted pending";
    startProgress();
    request("POST", api + "/submissions", { code: code, mode: mode })
      .then(function (s) { renderSubmission(s); return s.status === "finished" ? s : poll(s.id, 0); })
      .then(refreshHistory)
      .catch(function (err) {
        stopProgress(false);
        summary.textContent = "Not judged";
        summary.className = "verdict v-error";
        showMessage(err.message, "error");
      })
      .then(function () { setBusy(false); });
  }

  // ---- history ----
  function refreshHistory() {
    var list = document.getElementById("history-list");
    if (!list) return;
    return request("GET", api + "/submissions").then(function (data) {
      list.textContent = "";
      data.submissions.forEach(function (s) {
        var li = el("li");
        var a = el("a", null, "#" + s.id);
        a.href = s.url;
        li.appendChild(a);
        li.appendChild(el("span", "mode", s.mode));
        li.appendChild(el("span", "verdict v-" + (s.verdict || s.status), s.verdict_label || s.status));
        if (s.total !== null) li.appendChild(el("span", "muted", s.passed + "/" + s.total));
        list.appendChild(li);
      });
    }).catch(function () { /* the history is a convenience; the verdict is already shown */ });
  }

  // ---- the last result comes back on reload (the history has it; the panel should too) ----
  if (root.dataset.lastSubmission && loggedIn) {
    request("GET", "/api/submissions/" + encodeURIComponent(root.dataset.lastSubmission)).then(function (s) {
      if (!busy && caseList.childElementCount === 0) renderSubmission(s, true);
    }).catch(function () { /* a convenience: the history still links to it */ });
  }

  if (runBtn) runBtn.addEventListener("click", function () { start("run"); });
  if (submitBtn) submitBtn.addEventListener("click", function () { start("submit"); });
  // The shortcuts also work when focus is elsewhere on the page (the editor handles its own first).
  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.key !== "Enter") return;
    e.preventDefault();
    start(e.shiftKey ? "submit" : "run");
  });
})();
