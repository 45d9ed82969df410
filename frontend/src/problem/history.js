// The learner's submissions for this problem, refreshed after each verdict. Each row can load its
// code back into the editor (with Undo) and be picked for a comparison: pick two, and the link
// opens their line diff (/submissions/A/compare/B). "Older submissions" follows the list's `next`
// link (keyset pages by id: a row is never shown twice, even when new ones arrive meanwhile); it says
// when it is loading and when a page failed (the rows and the link stay: trying again continues),
// then moves focus to the first row it added, so a keyboard user reads on from there.
import { el } from "../shared/dom.js";
import { request } from "../shared/http.js";

export function createHistory({ api, replacer }) {
  const list = document.getElementById("history-list");
  const compareBar = document.getElementById("history-compare");
  const compareText = document.getElementById("history-compare-text");
  const compareLink = document.getElementById("history-compare-link");
  const olderBtn = document.getElementById("history-older");
  const olderStatus = document.getElementById("history-status");
  const OLDER = "Older submissions";
  let picked = []; // submission ids, in the order they were picked (two at most)
  let generation = 0; // bumped by refresh(): an older page asked for before it no longer fits the list

  function showCompare() {
    if (!compareBar) return;
    list.querySelectorAll("input.pick").forEach((box) => { box.checked = picked.includes(box.value); });
    compareBar.hidden = picked.length === 0;
    compareLink.hidden = picked.length !== 2;
    if (picked.length === 2) {
      const [a, b] = picked.map(Number).sort((x, y) => x - y);
      compareText.textContent = "Compare #" + a + " with #" + b + ":";
      compareLink.textContent = "Show the line diff";
      compareLink.href = "/submissions/" + a + "/compare/" + b;
    } else if (picked.length === 1) {
      compareText.textContent = "Pick one more submission to compare with #" + picked[0] + ".";
    }
  }

  function load(id, button) {
    button.disabled = true;
    request("GET", "/api/submissions/" + encodeURIComponent(id) + "/code").then((body) => {
      replacer.replace(body.code, "Loaded the code of submission #" + id + ".");
    }, (err) => {
      button.title = err.message;
    }).finally(() => { button.disabled = false; });
  }

  /** Add the row's controls: Load (into the editor) and a checkbox to pick it for a comparison. */
  function decorate(li) {
    const id = li.dataset.id;
    if (!id || li.querySelector(".history-actions")) return;
    const actions = el("span", "history-actions");
    const loadBtn = el("button", "btn btn-ghost load-btn", "Load");
    loadBtn.type = "button";
    loadBtn.setAttribute("aria-label", "Load the code of #" + id + " into the editor");
    loadBtn.addEventListener("click", () => load(id, loadBtn));
    const label = el("label", "pick-label");
    const box = el("input", "pick");
    box.type = "checkbox";
    box.value = id;
    box.checked = picked.includes(id);
    box.addEventListener("change", () => {
      picked = picked.filter((p) => p !== id);
      if (box.checked) picked.push(id);
      if (picked.length > 2) picked = picked.slice(-2); // the latest two picks
      showCompare();
    });
    label.appendChild(box);
    label.appendChild(el("span", "visually-hidden", "Compare #" + id));
    label.appendChild(el("span", "muted", "compare"));
    actions.appendChild(loadBtn);
    actions.appendChild(label);
    li.appendChild(actions);
  }

  function row(s) {
    const li = el("li");
    li.dataset.id = s.id;
    const meta = el("span", "history-meta");
    const a = el("a", null, "#" + s.id);
    a.href = s.url;
    meta.appendChild(a);
    meta.appendChild(el("span", "mode", s.mode));
    meta.appendChild(el("span", "verdict v-" + (s.verdict || s.status), s.verdict_label || s.status));
    if (s.total !== null) meta.appendChild(el("span", "muted", s.passed + "/" + s.total));
    const at = el("time", "muted", String(s.created_at).slice(0, 19).replace("T", " ") + " UTC");
    at.dateTime = s.created_at;
    meta.appendChild(at);
    li.appendChild(meta);
    decorate(li);
    return li;
  }
  /** Show "Older submissions" when the last page loaded has a `next` link, and remember it. */
  function setOlder(next) {
    if (!olderBtn) return;
    olderBtn.hidden = !next;
    olderBtn.textContent = OLDER;
    if (next) olderBtn.dataset.next = next;
    else delete olderBtn.dataset.next;
  }

  function say(text, failed) {
    if (!olderStatus) return;
    olderStatus.textContent = text;
    olderStatus.classList.toggle("error", Boolean(failed));
  }

  function shownIds() {
    return new Set(Array.from(list.querySelectorAll("li[data-id]"), (li) => li.dataset.id));
  }

  // aria-disabled, not disabled: a disabled button would drop the keyboard focus while it loads.
  function loadOlder() {
    const next = olderBtn.dataset.next;
    if (!next || olderBtn.getAttribute("aria-disabled") === "true") return;
    olderBtn.setAttribute("aria-disabled", "true");
    olderBtn.textContent = "Loading older submissions…";
    say("");
    const asked = generation;
    request("GET", next).then((data) => {
      if (asked !== generation) return; // the list went back to its first page meanwhile
      const shown = shownIds();
      const added = data.submissions.filter((s) => !shown.has(String(s.id))).map(row);
      added.forEach((li) => list.appendChild(li));
      setOlder(data.next);
      const total = list.querySelectorAll("li[data-id]").length;
      say(data.next ? added.length + " older submissions added." : "All " + total + " of your submissions are shown.");
      if (added.length) added[0].querySelector("a").focus();
      else if (!data.next && olderStatus) olderStatus.focus();
    }, (err) => {
      if (asked !== generation) return;
      olderBtn.textContent = "Try again: " + OLDER.toLowerCase();
      say("Could not load older submissions. " + err.message, true);
    }).finally(() => { olderBtn.removeAttribute("aria-disabled"); });
  }

  function refresh() {
    if (!list) return Promise.resolve();
    generation += 1;
    return request("GET", api + "/submissions").then((data) => {
      list.textContent = "";
      data.submissions.forEach((s) => list.appendChild(row(s)));
      if (!data.submissions.length) list.appendChild(el("li", "muted empty-history", "No submissions yet."));
      picked = picked.filter((id) => data.submissions.some((s) => String(s.id) === id));
      setOlder(data.next);
      say("");
      showCompare();
    }).catch(() => { /* the history is a convenience; the verdict is already shown */ });
  }
  if (list) list.querySelectorAll("li[data-id]").forEach(decorate);
  if (list && olderBtn) olderBtn.addEventListener("click", loadOlder);
  return { refresh };
}
