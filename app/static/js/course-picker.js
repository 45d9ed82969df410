// The problem picker: the page's plain <select multiple> (which works without scripts) becomes a
// search box (the ARIA combobox pattern: arrows move through the matches, Enter adds one, Escape
// closes) and an ordered list of the chosen problems (move up, move down, remove). The matches come
// from GET <data-search>?q= (only what this course may use); the chosen ones are sent as hidden
// "problems" fields in their order.
(() => {
  for (const root of document.querySelectorAll("[data-picker]")) {
    const select = root.querySelector("select");
    const label = root.querySelector("label");
    if (!select || !label) continue;
    const base = select.id;
    const titles = new Map([...select.options].map((o) => [o.value, o.textContent]));
    let chosen = JSON.parse(root.dataset.chosen || "[]");

    const input = document.createElement("input");
    Object.assign(input, { id: `${base}-search`, type: "text", autocomplete: "off", spellcheck: false });
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", `${base}-options`);
    input.setAttribute("aria-describedby", select.getAttribute("aria-describedby") || "");
    if (select.getAttribute("aria-invalid")) input.setAttribute("aria-invalid", "true");
    input.placeholder = "Search by title or slug";
    const list = document.createElement("ul");
    list.id = `${base}-options`;
    list.className = "picker-options";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Matching problems");
    list.hidden = true;
    const picked = document.createElement("ol");
    picked.id = `${base}-chosen`;
    picked.className = "picker-chosen";
    picked.setAttribute("aria-label", "Chosen problems, in order");
    const status = document.createElement("p");
    status.id = `${base}-status`;
    status.className = "muted";
    status.setAttribute("role", "status");

    label.htmlFor = input.id;
    label.textContent = "Add problems (search)";
    root.querySelector(".picker-help").textContent =
      "Type to search site problems and this course's own; ↓ ↑ to move, Enter to add. The chosen list below keeps your order.";
    select.hidden = true;
    select.disabled = true; // the hidden fields below are sent instead, in order
    select.after(input, list, picked, status);

    let matches = [];
    let active = -1;
    let asked = 0;

    const say = (text) => { status.textContent = text; };
    const close = () => {
      list.hidden = true; active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    };
    const highlight = (index) => {
      active = index;
      [...list.children].forEach((li, i) => li.setAttribute("aria-selected", String(i === index)));
      if (index >= 0 && list.children[index]) {
        input.setAttribute("aria-activedescendant", list.children[index].id);
        list.children[index].scrollIntoView({ block: "nearest" });
      } else input.removeAttribute("aria-activedescendant");
    };
    const showMatches = () => {
      list.replaceChildren();
      matches.forEach((c, i) => {
        const li = document.createElement("li");
        li.id = `${base}-option-${c.slug}`;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.dataset.slug = c.slug;
        li.textContent = `${c.title} (${c.slug}) · ${c.difficulty}` + (c.premium ? " · Premium" : "") +
          (c.course_only ? " · this course only" : "");
        li.addEventListener("mousedown", (e) => e.preventDefault()); // keep the focus in the box
        li.addEventListener("click", () => add(i));
        list.append(li);
      });
      list.hidden = matches.length === 0;
      input.setAttribute("aria-expanded", String(!list.hidden));
      highlight(matches.length ? 0 : -1);
      say(matches.length ? `${matches.length} matching problem${matches.length > 1 ? "s" : ""}.`
        : `No problem matches “${input.value.trim()}”.`);
    };
    const search = async () => {
      const ask = ++asked;
      const q = input.value.trim();
      try {
        const response = await fetch(`${root.dataset.search}?q=${encodeURIComponent(q)}`,
          { headers: { Accept: "application/json" }, credentials: "same-origin" });
        if (!response.ok) throw new Error(String(response.status));
        const body = await response.json();
        if (ask !== asked) return; // an older answer after a newer question
        for (const c of body.choices) titles.set(c.slug, `${c.title} (${c.slug})`);
        matches = body.choices.filter((c) => !chosen.includes(c.slug));
        showMatches();
      } catch (_) {
        if (ask === asked) say("The search failed: reload the page to try again.");
      }
    };
    let timer = 0;
    const soon = () => { clearTimeout(timer); timer = setTimeout(search, 120); };

    const render = () => {
      picked.replaceChildren();
      chosen.forEach((slug, i) => {
        const li = document.createElement("li");
        li.dataset.slug = slug;
        const name = document.createElement("span");
        name.textContent = titles.get(slug) || slug;
        const hidden = Object.assign(document.createElement("input"), { type: "hidden", name: "problems", value: slug });
        const button = (text, action, disabled) => {
          const b = Object.assign(document.createElement("button"), { type: "button", className: "btn btn-ghost", textContent: text });
          b.setAttribute("aria-label", `${action} ${titles.get(slug) || slug}`);
          b.disabled = disabled;
          return b;
        };
        const up = button("↑", "Move up", i === 0);
        const down = button("↓", "Move down", i === chosen.length - 1);
        const remove = button("Remove", "Remove", false);
        up.addEventListener("click", () => move(i, -1, up));
        down.addEventListener("click", () => move(i, 1, down));
        remove.addEventListener("click", () => {
          chosen.splice(i, 1); render(); say(`Removed ${titles.get(slug) || slug}. ${count()}`); input.focus();
        });
        li.append(name, " ", up, down, remove, hidden);
        picked.append(li);
      });
      if (!chosen.length) {
        const li = document.createElement("li");
        li.className = "muted empty";
        li.textContent = "No problem chosen yet.";
        picked.append(li);
      }
    };
    const count = () => `${chosen.length} problem${chosen.length === 1 ? "" : "s"} chosen.`;
    const move = (i, by, focusFrom) => {
      const j = i + by;
      [chosen[i], chosen[j]] = [chosen[j], chosen[i]];
      render();
      say(`${titles.get(chosen[j]) || chosen[j]} is now number ${j + 1}.`);
      const again = picked.children[j]?.querySelector(focusFrom.textContent === "↑" ? "button" : "button:nth-of-type(2)");
      (again && !again.disabled ? again : input).focus();
    };
    const add = (index) => {
      const c = matches[index];
      if (!c) return;
      chosen.push(c.slug);
      render();
      input.value = "";
      close();
      say(`Added ${c.title}. ${count()}`);
    };

    input.addEventListener("input", soon);
    input.addEventListener("blur", close);
    input.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown") {
        e.preventDefault();
        if (list.hidden) { search(); return; }
        highlight(Math.min(active + 1, matches.length - 1));
      } else if (e.key === "ArrowUp") {
        e.preventDefault();
        highlight(Math.max(active - 1, 0));
      } else if (e.key === "Enter") {
        if (!list.hidden && active >= 0) { e.preventDefault(); add(active); }
        else if (input.value.trim()) e.preventDefault(); // never submit the form from the search box
      } else if (e.key === "Escape") {
        if (!list.hidden) { e.preventDefault(); close(); }
      }
    });
    render();
  }
})();
