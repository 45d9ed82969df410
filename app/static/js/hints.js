// Problem page hints: "Show hint N of T" reveals the next one. The server remembers what was
// revealed (so a reload shows the same hints) and refuses on a locked Premium problem.
(function () {
  "use strict";
  var root = document.getElementById("problem");
  var section = document.getElementById("hints");
  var button = document.getElementById("hint-btn");
  if (!root || !section || !button) return;
  var list = document.getElementById("hint-list");
  var done = document.getElementById("hints-all");
  var total = parseInt(section.dataset.total, 10);
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var url = "/api/problems/" + encodeURIComponent(root.dataset.slug) + "/hints/next";
  var note = document.createElement("p");
  note.className = "alert alert-error";
  note.setAttribute("role", "alert");
  note.hidden = true;
  section.appendChild(note);

  function show(view) {
    var shown = list.children.length;
    for (var i = shown; i < view.revealed_html.length; i++) {
      var item = document.createElement("li");
      item.innerHTML = view.revealed_html[i]; // rendered and sanitised by the server, as the statement
      list.appendChild(item);
    }
    var count = view.revealed_html.length;
    button.hidden = view.remaining <= 0;
    button.textContent = "Show hint " + (count + 1) + " of " + total;
    if (done) done.hidden = view.remaining > 0;
    if (count > shown) { // move focus to the new hint so screen readers read it
      list.lastElementChild.setAttribute("tabindex", "-1");
      list.lastElementChild.focus();
    }
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    note.hidden = true;
    fetch(url, { method: "POST", headers: { Accept: "application/json", "X-CSRF-Token": csrf }, credentials: "same-origin" })
      .then(function (r) {
        return r.json().catch(function () { return null; }).then(function (body) {
          if (!r.ok) throw new Error((body && body.detail) || "Could not reveal the hint (HTTP " + r.status + ").");
          show(body);
        });
      })
      .catch(function (err) {
        note.textContent = err.message && err.message !== "Failed to fetch" ? err.message : "Could not reach the server.";
        note.hidden = false;
      })
      .then(function () { button.disabled = false; });
  });
})();
