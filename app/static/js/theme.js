// Runs in <head> before first paint: apply the saved theme (else the OS preference applies via CSS).
(function () {
  try {
    var saved = localStorage.getItem("torchdrill-theme");
    if (saved === "light" || saved === "dark") document.documentElement.dataset.theme = saved;
  } catch (e) { /* storage disabled: follow prefers-color-scheme */ }
})();
