// The assignment page's countdown: time left until the current window (due time or late window) ends.
// The server renders the deadline; this only keeps "time left" current. At zero it reloads, so the
// page shows the next window and its credit as the server computes them.
(() => {
  const el = document.getElementById("countdown");
  if (!el) return;
  const until = Date.parse(el.dataset.until);
  if (Number.isNaN(until)) return;
  const tick = () => {
    const left = Math.max(0, Math.floor((until - Date.now()) / 1000));
    const d = Math.floor(left / 86400), h = Math.floor((left % 86400) / 3600);
    const m = Math.floor((left % 3600) / 60), s = left % 60;
    el.textContent = (d ? `${d} d ` : "") + `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
    if (left === 0) { clearInterval(timer); setTimeout(() => location.reload(), 1500); }
  };
  const timer = setInterval(tick, 1000);
  tick();
})();
