// The judging progress: queued → running → finished, with the elapsed time against the limit.

const ORDER = ["queued", "running", "finished"];

export function createProgress(timeLimit) {
  const progress = document.getElementById("results-progress");
  const elapsedBox = document.getElementById("results-elapsed");
  let startedAt = 0;
  let ticker = null;

  function setStep(step) {
    const at = ORDER.indexOf(step);
    progress.dataset.step = step;
    progress.querySelectorAll("[data-step]").forEach((li) => {
      const i = ORDER.indexOf(li.dataset.step);
      li.className = i < at ? "done" : i === at ? "current" : "";
      if (i === at) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    });
    const bar = progress.querySelector(".bar");
    bar.setAttribute("aria-valuetext", step === "queued" ? "Waiting for the judge" : step === "running" ? "Running your code" : "Finished");
  }
  function start() {
    progress.hidden = false;
    startedAt = Date.now();
    setStep("queued");
    clearInterval(ticker);
    const tick = () => {
      const s = (Date.now() - startedAt) / 1000;
      elapsedBox.textContent = s.toFixed(1) + " s" + (timeLimit ? " (time limit " + timeLimit + " s)" : "");
    };
    tick();
    ticker = setInterval(tick, 200);
  }
  function stop(finished) {
    clearInterval(ticker);
    if (!finished) { progress.hidden = true; return; }
    setStep("finished");
    elapsedBox.textContent = "done in " + ((Date.now() - startedAt) / 1000).toFixed(1) + " s";
  }
  return { setStep, start, stop };
}
