// The join link's Copy button: the clipboard when the browser allows it, otherwise the link is
// selected so Ctrl+C (⌘C) copies it. Either way a visible, announced line says what happened.
(() => {
  const button = document.getElementById("copy-join");
  const status = document.getElementById("copy-status");
  if (!button || !status) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  button.hidden = false;
  const selectSource = () => {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  };
  const fallback = () => {
    selectSource();
    status.textContent = "Copying is not allowed here: the link is selected, press Ctrl+C (⌘C on a Mac) to copy it.";
    status.dataset.state = "selected";
  };
  button.addEventListener("click", async () => {
    const text = source.textContent.trim();
    if (!navigator.clipboard || !window.isSecureContext) { fallback(); return; }
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Join link copied.";
      status.dataset.state = "copied";
    } catch (_) {
      fallback();
    }
  });
})();
