// Problem editor: CodeMirror for the code fields, live Markdown preview, in-page Validate.
// Without JS the page is a plain form (textareas, Save); nothing here is needed to author a problem.
(function () {
  "use strict";
  var root = document.getElementById("authoring-editor");
  var form = document.getElementById("author-form");
  if (!root || !form) return;
  var csrf = document.querySelector('meta[name="csrf-token"]').content;

  // ---- unsaved edits: leaving the page asks first; Save and Publish (which post the form) do not ----
  var dirty = false;
  var markDirty = function () { dirty = true; root.dataset.dirty = "true"; };
  form.addEventListener("input", markDirty);
  form.addEventListener("change", markDirty);
  form.addEventListener("submit", function () { dirty = false; });
  window.addEventListener("beforeunload", function (e) {
    if (!dirty) return;
    e.preventDefault();
    e.returnValue = ""; // the browser shows its own "leave the page?" question
  });

  // ---- code editors: the textarea stays the form field, the editor writes into it ----
  if (window.TorchdrillEditor) {
    form.querySelectorAll("textarea[data-code]").forEach(function (textarea) {
      var host = form.querySelector('.code-host[data-for="' + textarea.id + '"]');
      if (!host) return;
      host.hidden = false;
      textarea.hidden = true;
      window.TorchdrillEditor.create(host, {
        doc: textarea.value,
        label: textarea.dataset.code,
        onChange: function (text) { textarea.value = text; markDirty(); },
      });
    });
  }

  // ---- live preview: rendered on the server (same renderer and sanitizer as the problem page) ----
  function debounce(fn, ms) {
    var timer = null;
    return function () {
      clearTimeout(timer);
      timer = setTimeout(fn, ms);
    };
  }
  form.querySelectorAll("textarea[data-preview]").forEach(function (textarea) {
    var target = document.getElementById(textarea.dataset.preview);
    var seq = 0;
    var update = function () {
      var mine = ++seq;
      fetch("/api/v1/authoring/preview", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify({ markdown: textarea.value, kind: textarea.dataset.previewKind || "statement" }),
        credentials: "same-origin",
      })
        .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
        .then(function (res) {
          if (mine !== seq) return; // a newer keystroke already asked again
          if (res.ok) target.innerHTML = res.body.html; // sanitized by the server (nh3)
          else target.textContent = res.body.detail || "The preview could not be rendered.";
        })
        .catch(function () { if (mine === seq) target.textContent = "Preview unavailable (offline?)."; });
    };
    textarea.addEventListener("input", debounce(update, 350));
    update();
  });

  // ---- Validate: runs the unsaved content in the sandbox, shows the report ----
  var button = document.getElementById("validate-btn");
  var body = document.getElementById("report-body");
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function where(f) { return f.file + (f.line ? ":" + f.line : ""); }
  function findingList(title, cls, findings) {
    if (!findings.length) return;
    body.appendChild(el("h3", null, title));
    var ul = el("ul", cls);
    findings.forEach(function (f) {
      var li = el("li");
      li.appendChild(el("span", "finding-file", where(f)));
      li.appendChild(document.createTextNode(": " + f.message + (f.fix ? " — " + f.fix : "")));
      ul.appendChild(li);
    });
    body.appendChild(ul);
  }
  function killMatrix(km, idle) {
    if (!km || !km.cases) return;
    var table = el("table", "kill-matrix");
    table.setAttribute("aria-label", "Kill matrix: which case rejects which mutant");
    var head = el("tr");
    function th(text, scope) { var cell = el("th", null, text); cell.scope = scope; return cell; }
    head.appendChild(th("mutant", "col"));
    km.cases.forEach(function (c, i) { var cell = th(String(i + 1), "col"); cell.title = c; head.appendChild(cell); });
    table.appendChild(el("thead")).appendChild(head);
    var tbody = table.appendChild(el("tbody"));
    km.mutants.forEach(function (m) {
      var tr = el("tr");
      tr.appendChild(th(m.name, "row"));
      m.kills.forEach(function (k) { tr.appendChild(el("td", null, k ? "x" : "·")); });
      tbody.appendChild(tr);
    });
    body.appendChild(table);
    body.appendChild(el("p", "muted", "Cases: " + km.cases.map(function (c, i) { return (i + 1) + " " + c; }).join(", ") +
      "." + (idle.length ? " Hidden cases that reject no mutant: " + idle.join(", ") + "." : "")));
  }
  function renderReport(r) {
    body.textContent = "";
    body.appendChild(el("p", r.ok ? "report-ok" : "report-fail", (r.ok ? "PASS " : "FAIL ") + r.slug));
    if (r.cases && r.cases.length) {
      var pub = r.cases.filter(function (c) { return c.public; }).length;
      body.appendChild(el("p", "muted", r.cases.length + " cases (" + pub + " public); starter: " +
        (r.starter_verdict || "-") + "; mutation score: " + r.mutation_score));
    }
    findingList("Errors", "report-errors", r.errors || []);
    if (r.mutants && r.mutants.length) {
      body.appendChild(el("h3", null, "Mutants"));
      var ul = el("ul", "report-mutants");
      r.mutants.forEach(function (m) {
        ul.appendChild(el("li", null, m.name + ": " + (m.killed ? "killed" : "SURVIVED") + " (" + m.verdict +
          (m.caught_by.length ? ", caught by " + m.caught_by.join(", ") : "") + ")"));
      });
      body.appendChild(ul);
      killMatrix(r.kill_matrix, r.idle_cases || []);
    }
    findingList("Warnings", "report-warnings", r.warnings || []);
  }
  if (button && body) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var data = new FormData(form);
      button.disabled = true;
      body.textContent = "";
      body.appendChild(el("p", "muted pending", "Validating in the sandbox…"));
      fetch("/authoring/validate", {
        method: "POST",
        headers: { "X-CSRF-Token": csrf, Accept: "application/json" },
        body: data,
        credentials: "same-origin",
      })
        .then(function (r) { return r.json(); })
        .then(function (r) {
          if (r.error) { body.textContent = ""; body.appendChild(el("p", "report-fail", r.detail)); }
          else renderReport(r);
        })
        .catch(function () { body.textContent = "Validation could not be reached. Try again."; })
        .then(function () { button.disabled = false; });
    });
  }
})();
