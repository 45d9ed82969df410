// Problem/Learn tabs and, on narrow screens, the Problem/Code pane switch.
// Without JS both tab panels are simply shown one after the other, and both panes are stacked.

/** A WAI-ARIA tablist: click or arrows/Home/End select a tab and show its panel. Returns select(id). */
export function setUpTablist(tablist, onSelect) {
  const tabs = Array.from(tablist.querySelectorAll('[role="tab"]'));
  const select = (tab) => {
    tabs.forEach((t) => {
      const on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
    if (onSelect) onSelect(tab);
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
  return (id) => select(document.getElementById(id));
}

export function setUpTabs(root) {
  const tablist = root.querySelector(".problem-pane .tabs");
  if (!tablist) return null;
  const select = setUpTablist(tablist);
  tablist.hidden = false;
  root.classList.add("has-tabs");
  root.querySelectorAll(".learn-title").forEach((h) => h.classList.add("visually-hidden"));
  select(location.hash === "#learn" ? "tab-learn" : "tab-statement");
  return select;
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
