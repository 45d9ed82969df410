// Drafts: the server keeps one per user and problem; this browser keeps a copy until it is saved.
// Code typed while signed out (the "anon" slot) follows the learner into their account, once.
import { request } from "../shared/http.js";

const SAVE_DELAY_MS = 700;

export function createDrafts({ api, userId, slug, canSave, starter }) {
  const localKey = "torchdrill-draft:" + userId + ":" + slug;
  const statusBox = document.getElementById("draft-status");
  let pending = null; // text waiting to be saved
  let saving = false;
  let saveTimer = null;

  const readLocal = (key) => {
    try { const raw = localStorage.getItem(key); return raw === null ? null : JSON.parse(raw).code; } catch (e) { return null; }
  };
  const writeLocal = (text) => {
    try { localStorage.setItem(localKey, JSON.stringify({ code: text, at: Date.now() })); } catch (e) { /* storage off */ }
  };
  const dropLocal = (key) => { try { localStorage.removeItem(key); } catch (e) { /* storage off */ } };

  function showStatus(text, state) {
    if (!statusBox) return;
    statusBox.textContent = text;
    statusBox.dataset.state = state;
  }
  function flush(keepalive) {
    clearTimeout(saveTimer);
    if (pending === null || saving) return Promise.resolve();
    const text = pending;
    pending = null;
    saving = true;
    showStatus("Saving…", "saving");
    return request("PUT", api + "/draft", { code: text }, { keepalive }).then(() => {
      saving = false;
      if (pending === null) { dropLocal(localKey); showStatus("Draft saved", "saved"); }
      else flush(false); // typed while saving
    }, (err) => {
      saving = false;
      if (pending === null) pending = text;
      if (err.status === 0 || err.status >= 500) {
        showStatus("Offline: draft kept in this browser", "offline");
        saveTimer = setTimeout(() => flush(false), 5000);
      } else {
        showStatus("Draft not saved: " + err.message, "error");
      }
    });
  }
  function changed(text) {
    writeLocal(text);
    if (!canSave) return;
    pending = text;
    if (!saving) showStatus("Unsaved changes", "dirty");
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => flush(false), SAVE_DELAY_MS);
  }

  /** The code to open with: the server's draft, unless this browser holds newer unsaved text. */
  function initialCode(serverDraft) {
    let initial = serverDraft;
    const local = readLocal(localKey);
    let restored = local !== null && local !== initial;
    if (restored) initial = local;
    let adoptedAnon = false;
    if (canSave && userId !== "anon") {
      const anonKey = "torchdrill-draft:anon:" + slug;
      const anonCode = readLocal(anonKey);
      if (anonCode !== null && anonCode !== starter && anonCode !== initial) { initial = anonCode; adoptedAnon = true; restored = true; }
      if (anonCode !== null) dropLocal(anonKey);
    }
    return { code: initial, restored, adoptedAnon };
  }

  /** After the editor opened with restored text: save it and say where it came from. */
  function announceRestored(opened) {
    if (!opened.restored || !canSave) return;
    changed(opened.code);
    showStatus(opened.adoptedAnon ? "Kept the code you wrote before signing in" : "Restored unsaved changes from this browser", "dirty");
  }

  window.addEventListener("pagehide", () => { if (pending !== null) flush(true); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden" && pending !== null) flush(true);
  });

  return { changed, flush, initialCode, announceRestored, hasPending: () => pending !== null };
}
