// Submission page: highlight what differs in failed public cases; while the verdict is pending,
// show the status as it changes and reload once it is finished (the page itself needs no JS).
(function () {
  "use strict";
  if (window.TorchdrillDiff) {
    document.querySelectorAll(".compare.needs-diff").forEach(function (box) {
      var pres = box.querySelectorAll("pre");
      if (pres.length === 2 && window.TorchdrillDiff.highlight(pres[0], pres[1])) {
        var note = document.createElement("p");
        note.className = "compare-note muted";
        note.textContent = "Entries that differ are highlighted.";
        box.appendChild(note);
      }
    });
  }
  var root = document.getElementById("submission");
  if (!root || root.dataset.status === "finished") return;
  var id = root.dataset.id;
  var statusBox = document.getElementById("submission-status");
  function poll() {
    fetch("/api/submissions/" + id + "?wait=true&timeout=1", { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (s) {
        if (s.status === "finished") { window.location.reload(); return; }
        statusBox.textContent = s.status;
        poll();
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  poll();
})();
