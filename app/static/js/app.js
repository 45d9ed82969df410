// Site-wide behaviour: focus on the first invalid form field, and the light/dark theme toggle.
(function () {
  var invalid = document.querySelector('main form [aria-invalid="true"]');
  if (invalid) invalid.focus();
  // Code blocks wider than the page scroll sideways: keyboard users must be able to reach them.
  // Measured once the page is up (after the load event), so this never forces a layout of the
  // whole page before the page's own scripts (the editor) have run.
  function reachable() {
    document.querySelectorAll("main pre").forEach(function (pre) {
      if (pre.scrollWidth > pre.clientWidth || pre.scrollHeight > pre.clientHeight) pre.tabIndex = 0;
    });
  }
  if (document.readyState === "complete") reachable(); else window.addEventListener("load", reachable);
})();
(function () {
  var button = document.getElementById("theme-toggle");
  if (!button) return;
  function current() {
    var explicit = document.documentElement.dataset.theme;
    if (explicit) return explicit;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function label() {
    var dark = current() === "dark";
    button.setAttribute("aria-pressed", dark ? "true" : "false");
    // The name starts with the visible label ("Light"), as WCAG's "label in name" asks.
    button.setAttribute("aria-label", dark ? "Dark theme: switch to light theme" : "Light theme: switch to dark theme");
    button.querySelector(".theme-label").textContent = dark ? "Dark" : "Light";
  }
  button.addEventListener("click", function () {
    var next = current() === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    try { localStorage.setItem("torchdrill-theme", next); } catch (e) { /* not persisted */ }
    label();
    document.dispatchEvent(new CustomEvent("torchdrill:theme", { detail: next }));
  });
  label();
})();
