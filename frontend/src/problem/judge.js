// Run and Submit: send the code, then follow the submission until its verdict is recorded.
import { request } from "../shared/http.js";

/** Light polling: each request waits up to a second on the server, so "running" shows as soon as
 * the judge starts and the verdict arrives the moment it is recorded. */
export function follow(id, onUpdate, attempt = 0) {
  return request("GET", "/api/submissions/" + id + "?wait=true&timeout=1").then((s) => {
    onUpdate(s);
    if (s.status === "finished") return s;
    return follow(id, onUpdate, 0);
  }, (err) => {
    if (err.status === 0 && attempt < 5) {
      return new Promise((res) => setTimeout(res, 1000 * (attempt + 1))).then(() => follow(id, onUpdate, attempt + 1));
    }
    throw err;
  });
}

export function createJudge({ root, api, loggedIn, editor, drafts, results, progress, onFinished }) {
  const runBtn = document.getElementById("run-btn");
  const submitBtn = document.getElementById("submit-btn");
  let busy = false;

  function setBusy(on) {
    busy = on;
    [runBtn, submitBtn].forEach((b) => { if (b) b.disabled = on; });
    root.classList.toggle("is-busy", on);
    document.getElementById("results").setAttribute("aria-busy", on ? "true" : "false");
  }
  /** Send `payload` (mode run|submit|custom, code added here) and show the submission as it is judged;
   * `show` renders each state (the results panel by default), `fail` shows a refusal (the panel by
   * default). Resolves to the finished view or null. */
  function send(payload, sending, show, fail) {
    if (busy) return Promise.resolve(null);
    if (!loggedIn) { results.showMessage("Sign up or log in to run and submit your code; what you typed is kept.", "error"); return Promise.resolve(null); }
    if (!runBtn) return Promise.resolve(null);
    const render = show || ((s) => results.render(s));
    if (drafts.hasPending()) drafts.flush(false);
    setBusy(true);
    results.pending(sending);
    progress.start();
    return request("POST", api + "/submissions", { code: editor.getCode(), ...payload })
      .then((s) => { render(s); return s.status === "finished" ? s : follow(s.id, render); })
      .then((s) => { onFinished(s); return s; })
      .catch((err) => {
        progress.stop(false);
        (fail || results.failed)(err.message);
        throw err;
      })
      .finally(() => setBusy(false));
  }
  function start(mode) {
    send({ mode }, mode === "run" ? "Sending your run…" : "Sending your submission…").catch(() => { /* shown */ });
  }
  if (runBtn) runBtn.addEventListener("click", () => start("run"));
  if (submitBtn) submitBtn.addEventListener("click", () => start("submit"));
  // The shortcuts also work when focus is elsewhere on the page (the editor handles its own first).
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.key !== "Enter") return;
    e.preventDefault();
    start(e.shiftKey ? "submit" : "run");
  });
  return { start, send, isBusy: () => busy };
}
