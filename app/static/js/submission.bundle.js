(() => {
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

  // src/submission/main.js
  function main() {
    const root = document.getElementById("submission");
    if (!root) return;
    const view = embedded("submission-data");
    const list = document.getElementById("submission-cases");
    if (view && list) renderCases(list, view);
    if (root.dataset.status === "finished") return;
    const statusBox = document.getElementById("submission-status");
    const poll = () => {
      fetch("/api/submissions/" + root.dataset.id + "?wait=true&timeout=1", { headers: { Accept: "application/json" } }).then((r) => r.ok ? r.json() : Promise.reject(r.status)).then((s) => {
        if (s.status === "finished") {
          window.location.reload();
          return;
        }
        statusBox.textContent = s.status;
        poll();
      }).catch(() => setTimeout(poll, 3e3));
    };
    poll();
  }
  main();
})();
