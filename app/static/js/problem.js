// Problem page: editor, tabs, Run/Submit, live results by polling, submission history.
// Nothing here ever replaces the learner's code because of an error: errors go to the results panel.
(function () {
  "use strict";
  var root = document.getElementById("problem");
  if (!root) return;
  var slug = root.dataset.slug;
  var loggedIn = root.dataset.loggedIn === "true";
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var draftKey = "torchdrill-draft:" + slug;

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
        if (next) { e.preventDefault(); select(next); next.focus(); }
      });
    });
    tablist.hidden = false;
    root.classList.add("has-tabs");
    root.querySelectorAll(".learn-title").forEach(function (h) { h.classList.add("visually-hidden"); });
    select(tabs[0]);
  }

  // ---- editor ----
  var textarea = document.getElementById("code");
  var host = document.getElementById("editor");
  if (!textarea || !host) return; // locked problem: no editor
  var starterNode = document.getElementById("starter-code");
  var starter = starterNode ? JSON.parse(starterNode.textContent) : "";
  var draft = null;
  try { draft = localStorage.getItem(draftKey); } catch (e) { /* storage disabled */ }
  var editor = null;
  var getCode = function () { return editor ? editor.getCode() : textarea.value; };
  var saveDraft = function (text) { try { localStorage.setItem(draftKey, text); } catch (e) { /* ignore */ } };
  if (window.TorchdrillEditor) {
    editor = window.TorchdrillEditor.create(host, {
      doc: draft !== null ? draft : textarea.value,
      onRun: function () { start("run"); },
      onSubmit: function () { start("submit"); },
      onChange: saveDraft,
    });
    textarea.hidden = true;
    textarea.removeAttribute("name");
  } else {
    host.hidden = true;
    if (draft !== null) textarea.value = draft;
    textarea.addEventListener("input", function () { saveDraft(textarea.value); });
    textarea.addEventListener("keydown", function (e) {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); start(e.shiftKey ? "submit" : "run"); }
    });
  }

  // ---- results panel ----
  var summary = document.getElementById("results-summary");
  var messageBox = document.getElementById("results-message");
  var caseList = document.getElementById("results-cases");
  var runBtn = document.getElementById("run-btn");
  var submitBtn = document.getElementById("submit-btn");
  var resetBtn = document.getElementById("reset-btn");
  var busy = false;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function showMessage(text, kind) {
    messageBox.hidden = !text;
    messageBox.textContent = text || "";
    messageBox.className = "results-message" + (kind ? " " + kind : "");
  }
  function setBusy(on) {
    busy = on;
    [runBtn, submitBtn].forEach(function (b) { if (b) b.disabled = on; });
    root.classList.toggle("is-busy", on);
  }
  function kv(label, value) {
    var row = el("div", "kv");
    row.appendChild(el("span", null, label));
    row.appendChild(el("pre", null, value));
    return row;
  }
  function renderSubmission(s) {
    if (s.status !== "finished") {
      summary.textContent = s.status === "queued" ? "Queued…" : "Running…";
      summary.className = "muted pending";
      return;
    }
    var label = s.verdict_label || s.verdict;
    summary.textContent = label + " — " + s.passed + "/" + s.total + " passed" +
      (s.time_ms ? " in " + Math.round(s.time_ms) + " ms" : "");
    summary.className = "verdict v-" + s.verdict;
    showMessage(s.message, s.verdict === "accepted" ? "" : "error");
    caseList.textContent = "";
    s.cases.forEach(function (c) {
      var li = el("li", "case case-" + c.status);
      var head = el("div", "case-head");
      head.appendChild(el("span", "case-status", c.status.replace("_", " ")));
      head.appendChild(el("span", "case-name", c.public ? c.name : "hidden test"));
      head.appendChild(el("span", "muted", Math.round(c.time_ms || 0) + " ms"));
      li.appendChild(head);
      if (c.message) li.appendChild(el("pre", "case-message", c.message));
      if (c.public) {
        if (c.expected !== null && c.expected !== undefined) li.appendChild(kv("Expected", c.expected));
        if (c.actual !== null && c.actual !== undefined) li.appendChild(kv("Your output", c.actual));
        if (c.stdout) li.appendChild(kv("Stdout", c.stdout));
      }
      caseList.appendChild(li);
    });
    var link = el("a", "submission-link", "Open submission #" + s.id);
    link.href = s.url;
    var li = el("li", "case-footer");
    li.appendChild(link);
    caseList.appendChild(li);
  }
  function errorText(status, body) {
    if (body && body.detail) return body.detail;
    if (status === 0) return "Could not reach the server. Check your connection; your code is still here.";
    return "The request failed (HTTP " + status + "). Your code is still here; try again.";
  }
  function request(method, url, payload) {
    var opts = { method: method, headers: { Accept: "application/json", "X-CSRF-Token": csrf }, credentials: "same-origin" };
    if (payload !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(payload);
    }
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
  function poll(id, attempt) {
    return request("GET", "/api/submissions/" + id + "?wait=true&timeout=15").then(function (s) {
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
    if (!loggedIn) { showMessage("Log in to run and submit your code.", "error"); return; }
    var code = getCode();
    saveDraft(code);
    setBusy(true);
    showMessage("");
    caseList.textContent = "";
    summary.textContent = mode === "run" ? "Submitting run…" : "Submitting…";
    summary.className = "muted pending";
    request("POST", "/api/problems/" + encodeURIComponent(slug) + "/submissions", { code: code, mode: mode })
      .then(function (s) { renderSubmission(s); return poll(s.id, 0); })
      .then(refreshHistory)
      .catch(function (err) {
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
    return request("GET", "/api/problems/" + encodeURIComponent(slug) + "/submissions").then(function (data) {
      list.textContent = "";
      data.submissions.forEach(function (s) {
        var li = el("li");
        var a = el("a", null, "#" + s.id);
        a.href = s.url;
        li.appendChild(a);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("span", "mode", s.mode));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("span", "verdict v-" + (s.verdict || s.status), s.verdict_label || s.status));
        if (s.total !== null) { li.appendChild(document.createTextNode(" ")); li.appendChild(el("span", "muted", s.passed + "/" + s.total)); }
        list.appendChild(li);
      });
    }).catch(function () { /* the history is a convenience; the verdict is already shown */ });
  }

  if (runBtn) runBtn.addEventListener("click", function () { start("run"); });
  if (submitBtn) submitBtn.addEventListener("click", function () { start("submit"); });
  if (resetBtn) resetBtn.addEventListener("click", function () {
    if (!window.confirm("Replace your code with the starter code? Your current code will be lost.")) return;
    if (editor) editor.setCode(starter); else textarea.value = starter;
    saveDraft(starter);
  });
})();
