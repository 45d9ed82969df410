// Submission page: its cases rendered from the submission view's JSON (embedded by the template)
// with the same renderer as the problem page; while the verdict is pending, the status as it
// changes, then a reload once it is finished.
// Built by `npm run build` into app/static/js/submission.bundle.js.
import { embedded } from "../shared/dom.js";
import { renderCases } from "../shared/cases.js";

function main() {
  const root = document.getElementById("submission");
  if (!root) return;
  const view = embedded("submission-data");
  const list = document.getElementById("submission-cases");
  if (view && list) renderCases(list, view);
  if (root.dataset.status === "finished") return;
  const statusBox = document.getElementById("submission-status");
  const poll = () => {
    fetch("/api/submissions/" + root.dataset.id + "?wait=true&timeout=1", { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
      .then((s) => {
        if (s.status === "finished") { window.location.reload(); return; }
        statusBox.textContent = s.status;
        poll();
      })
      .catch(() => setTimeout(poll, 3000));
  };
  poll();
}

main();
