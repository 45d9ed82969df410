// The page's counters after a submit is judged (acceptance; the Solved mark is set by results.js):
// read again from the problem page itself, so the server stays the one place that formats them.

export function refreshCounters(slug) {
  const box = document.getElementById("acceptance");
  if (!box) return;
  fetch("/problems/" + encodeURIComponent(slug), { credentials: "same-origin", headers: { Accept: "text/html" } })
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => {
      const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("acceptance");
      if (fresh) box.replaceChildren(...Array.from(fresh.childNodes).map((n) => document.importNode(n, true)));
    })
    .catch(() => { /* a convenience: a reload shows it */ });
}
