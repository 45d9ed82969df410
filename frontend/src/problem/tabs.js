// Problem/Learn tabs and, on narrow screens, the Problem/Code pane switch.
// Without JS both tab panels are simply shown one after the other, and both panes are stacked.

export function setUpTabs(root) {
  const tablist = root.querySelector(".tabs");
  if (!tablist) return;
  const tabs = Array.from(tablist.querySelectorAll('[role="tab"]'));
  const select = (tab) => {
    tabs.forEach((t) => {
      const on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (e) => {
      let next = null;
      if (e.key === "ArrowRight") next = tabs[(i + 1) % tabs.length];
      if (e.key === "ArrowLeft") next = tabs[(i - 1 + tabs.length) % tabs.length];
      if (e.key === "Home") next = tabs[0];
      if (e.key === "End") next = tabs[tabs.length - 1];
      if (next) { e.preventDefault(); select(next); next.focus(); }
    });
  });
  tablist.hidden = false;
  root.classList.add("has-tabs");
  root.querySelectorAll(".learn-title").forEach((h) => h.classList.add("visually-hidden"));
  select(location.hash === "#learn" ? tabs[1] : tabs[0]);
}

const PANE_KEY = "torchdrill-pane";

export function setUpPaneSwitch(root) {
  const paneSwitch = document.getElementById("pane-switch");
  if (!paneSwitch || !document.getElementById("editor")) return;
  const buttons = Array.from(paneSwitch.querySelectorAll("[data-pane]"));
  const show = (name, remember) => {
    root.dataset.pane = name;
    buttons.forEach((b) => b.setAttribute("aria-pressed", b.dataset.pane === name ? "true" : "false"));
    if (remember) { try { sessionStorage.setItem(PANE_KEY, name); } catch (e) { /* storage off */ } }
  };
  buttons.forEach((b) => b.addEventListener("click", () => show(b.dataset.pane, true)));
  paneSwitch.hidden = false;
  root.classList.add("has-pane-switch");
  let saved = null;
  try { saved = sessionStorage.getItem(PANE_KEY); } catch (e) { saved = null; }
  show(saved === "code" ? "code" : "problem", false);
}
