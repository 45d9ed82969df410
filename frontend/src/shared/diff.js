// Expected vs actual, side by side, with the entries that differ highlighted.
// Shared by the problem page (live results, custom input) and the submission page.
// Numbers (incl. 1e-05, -inf, nan), names, and single punctuation marks are the units compared.
var TOKEN = /[A-Za-z0-9_.+\-]+|\s+|[^A-Za-z0-9_.+\-\s]/g;

export function tokens(text) { return String(text).match(TOKEN) || []; }

// Which tokens of a and b are part of a longest common subsequence (same-shape values compare by
// position instead, so a wrong entry is flagged where it is, not matched against another one).
function common(a, b) {
  var keepA = new Array(a.length), keepB = new Array(b.length), i, j;
  if (a.length === b.length) {
    for (i = 0; i < a.length; i++) keepA[i] = keepB[i] = a[i] === b[i];
    return [keepA, keepB];
  }
  if (a.length * b.length > 4000000) { // too big to align: flag nothing rather than hang the tab
    keepA.fill(true); keepB.fill(true);
    return [keepA, keepB];
  }
  var n = a.length, m = b.length, w = m + 1;
  var table = new Uint16Array((n + 1) * (m + 1));
  for (i = n - 1; i >= 0; i--) {
    for (j = m - 1; j >= 0; j--) {
      table[i * w + j] = a[i] === b[j] ? table[(i + 1) * w + j + 1] + 1
        : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
    }
  }
  i = 0; j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { keepA[i++] = true; keepB[j++] = true; }
    else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) keepA[i++] = false;
    else keepB[j++] = false;
  }
  while (i < n) keepA[i++] = false;
  while (j < m) keepB[j++] = false;
  return [keepA, keepB];
}

function fill(pre, parts, keep) {
  pre.textContent = "";
  var plain = "";
  var flush = function () { if (plain) { pre.appendChild(document.createTextNode(plain)); plain = ""; } };
  parts.forEach(function (part, i) {
    if (keep[i] || /^\s+$/.test(part)) { plain += part; return; }
    flush();
    var mark = document.createElement("mark");
    mark.className = "diff";
    mark.textContent = part;
    pre.appendChild(mark);
  });
  flush();
}

// Highlight the differing entries of two <pre> elements in place; returns how many were flagged.
export function highlight(expectedPre, actualPre) {
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

// A side-by-side block for one public case (labels: the two column titles, for custom input).
export function compare(expected, actual, failed, labels) {
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
