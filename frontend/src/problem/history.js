// The learner's submissions for this problem, refreshed after each verdict.
import { el } from "../shared/dom.js";
import { request } from "../shared/http.js";

export function createHistory({ api }) {
  const list = document.getElementById("history-list");

  function row(s) {
    const li = el("li");
    li.dataset.id = s.id;
    const a = el("a", null, "#" + s.id);
    a.href = s.url;
    li.appendChild(a);
    li.appendChild(el("span", "mode", s.mode));
    li.appendChild(el("span", "verdict v-" + (s.verdict || s.status), s.verdict_label || s.status));
    if (s.total !== null) li.appendChild(el("span", "muted", s.passed + "/" + s.total));
    return li;
  }
  function refresh() {
    if (!list) return Promise.resolve();
    return request("GET", api + "/submissions").then((data) => {
      list.textContent = "";
      data.submissions.forEach((s) => list.appendChild(row(s)));
      list.dispatchEvent(new CustomEvent("torchdrill:history"));
    }).catch(() => { /* the history is a convenience; the verdict is already shown */ });
  }
  return { refresh };
}
