// The split between the statement and the editor: drag the separator, or focus it and use the
// arrow keys (Home/End for the extremes). Remembered in this browser. Wide screens only (CSS).

const KEY = "torchdrill-split";
const MIN = 25;
const MAX = 75;
const STEP = 2;

export function setUpSplit(root) {
  const handle = document.getElementById("pane-splitter");
  if (!handle || !document.getElementById("editor")) return;
  const clamp = (v) => Math.min(MAX, Math.max(MIN, Math.round(v)));
  let value = 50;
  try { value = clamp(parseFloat(localStorage.getItem(KEY) || "50") || 50); } catch (e) { value = 50; }

  function apply(v, remember) {
    value = clamp(v);
    root.style.setProperty("--split-a", value + "fr");
    root.style.setProperty("--split-b", 100 - value + "fr");
    handle.setAttribute("aria-valuenow", String(value));
    handle.setAttribute("aria-valuetext", "Statement " + value + "%, editor " + (100 - value) + "%");
    if (remember) { try { localStorage.setItem(KEY, String(value)); } catch (e) { /* not remembered */ } }
  }
  handle.addEventListener("keydown", (e) => {
    const moves = { ArrowLeft: value - STEP, ArrowRight: value + STEP, Home: MIN, End: MAX };
    if (!(e.key in moves)) return;
    e.preventDefault();
    apply(moves[e.key], true);
  });
  handle.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    handle.classList.add("dragging");
    const box = root.getBoundingClientRect();
    const move = (ev) => apply(((ev.clientX - box.left) / box.width) * 100, false);
    const up = () => {
      handle.classList.remove("dragging");
      handle.removeEventListener("pointermove", move);
      apply(value, true);
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up, { once: true });
  });
  handle.hidden = false;
  root.classList.add("has-split");
  apply(value, false);
}
