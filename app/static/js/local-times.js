// Times on the course pages: the server writes each <time data-local> in UTC; this shows it in the
// viewer's own timezone (the UTC text stays in the title). No script, no change: UTC is still right.
(() => {
  const format = new Intl.DateTimeFormat(undefined, {
    weekday: "short", year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", timeZoneName: "short",
  });
  for (const el of document.querySelectorAll("time[data-local]")) {
    const at = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(at.getTime())) continue;
    el.title = el.textContent.trim();
    el.textContent = format.format(at);
    el.dataset.localised = "true";
  }
})();
