// The regrade page while judging: poll the API for progress (judged/total); once every submission
// is re-judged, reload so the server renders the dry run's table of changes.
(() => {
  const box = document.getElementById("regrade");
  if (!box || box.dataset.status !== "judging") return;
  const bar = document.getElementById("regrade-progress");
  const count = document.getElementById("regrade-count");
  const poll = async () => {
    try {
      const res = await fetch(box.dataset.api, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (res.ok) {
        const run = await res.json();
        bar.max = run.total || 1;
        bar.value = run.total ? run.judged : 1;
        count.textContent = `${run.judged}/${run.total}`;
        if (run.status !== "judging") { location.reload(); return; }
      }
    } catch (_) { /* a network blip: try again */ }
    setTimeout(poll, 1000);
  };
  setTimeout(poll, 500);
})();
