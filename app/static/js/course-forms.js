// A refused form comes back with its messages in a summary above its fields (role=alert); the
// page may open far above it, so the summary is scrolled into view and focused: the next Tab
// reaches its links, each of which leads to its field.
(() => {
  const summary = document.querySelector("[data-form-errors]");
  if (summary) summary.focus();
})();
