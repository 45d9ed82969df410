// Submission page: while the verdict is pending, poll and reload once it is finished.
(function () {
  var root = document.getElementById("submission");
  if (!root || root.dataset.status === "finished") return;
  var id = root.dataset.id;
  function poll() {
    fetch("/api/submissions/" + id + "?wait=true&timeout=20", { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (s) {
        if (s.status === "finished") { window.location.reload(); return; }
        document.getElementById("submission-status").textContent = s.status;
        setTimeout(poll, 500);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  poll();
})();
