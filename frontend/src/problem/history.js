// The learner's submissions for this problem, refreshed after each verdict. Each row can load its
// code back into the editor (with Undo) and be picked for a comparison: pick two, and the link
// opens their line diff (/submissions/A/compare/B). "Older submissions" follows the list's `next`
// link (keyset pages by id: a row is never shown twice, even when new ones arrive meanwhile).
import { el } from "../shared/dom.js";
import { request } from "../shared/http.js";

export function createHistory({ api, replacer }) {
  const list = document.getElementById("history-list");
  const compareBar = document.getElementById("history-compare");
  const compareText = document.getElementById("history-compare-text");
  const compareLink = document.getElementById("history-compare-link");
  const olderBtn = document.getElementById("history-older");
  let picked = []; // submission ids, in the order they were picked (two at most)

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
    const a = el("a", null, "#" + s.id);
    a.href = s.url;
    li.appendChild(a);
    li.appendChild(el("span", "mode", s.mode));
    li.appendChild(el("span", "verdict v-" + (s.verdict || s.status), s.verdict_label || s.status));
    if (s.total !== null) li.appendChild(el("span", "muted", s.passed + "/" + s.total));
    decorate(li);
    return li;
  }
  /** Show "Older submissions" when the last page loaded has a `next` link, and remember it. */
  function setOlder(next) {
    if (!olderBtn) return;
    olderBtn.hidden = !next;
    if (next) olderBtn.dataset.next = next;
    else delete olderBtn.dataset.next;
  }

  function loadOlder() {
    const next = olderBtn.dataset.next;
    if (!next) return;
    olderBtn.disabled = true;
    request("GET", next).then((data) => {
      data.submissions.forEach((s) => list.appendChild(row(s)));
      setOlder(data.next);
      olderBtn.title = "";
    }, (err) => {
      olderBtn.title = err.message;
    }).finally(() => { olderBtn.disabled = false; });
  }

  function refresh() {
    if (!list) return Promise.resolve();
    return request("GET", api + "/submissions").then((data) => {
      list.textContent = "";
      data.submissions.forEach((s) => list.appendChild(row(s)));
      picked = picked.filter((id) => data.submissions.some((s) => String(s.id) === id));
      setOlder(data.next);
      showCompare();
    }).catch(() => { /* the history is a convenience; the verdict is already shown */ });
  }
  if (list) list.querySelectorAll("li[data-id]").forEach(decorate);
  if (list && olderBtn) olderBtn.addEventListener("click", loadOlder);
  return { refresh };
}
