// Completion of torch names: `torch.`, `torch.nn.`, `torch.nn.functional.` (and the usual aliases
// `nn.` and `F.`), and Tensor methods after any other `name.`. The names come from
// app/static/torch-completions.json, generated from the pinned torch by
// scripts/gen-torch-completions.py; the page fetches it and passes it in.

const ALIASES = { nn: "torch.nn", F: "torch.nn.functional", functional: "torch.nn.functional" };

function options(entries) {
  return entries.map((e) => ({ label: e.name, type: e.type }));
}

export function torchCompletions(data) {
  const modules = {};
  Object.keys(data.modules || {}).forEach((name) => { modules[name] = options(data.modules[name]); });
  const tensorMethods = options(data.tensor_methods || []);
  const topLevel = [{ label: "torch", type: "namespace" }];

  return (context) => {
    const word = context.matchBefore(/[A-Za-z_][\w.]*/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const dot = word.text.lastIndexOf(".");
    if (dot < 0) {
      return "torch".startsWith(word.text) ? { from: word.from, options: topLevel, validFor: /^\w*$/ } : null;
    }
    const owner = word.text.slice(0, dot);
    const from = word.from + dot + 1;
    const module = modules[owner] || modules[ALIASES[owner]];
    if (module) return { from, options: module, validFor: /^\w*$/ };
    if (/^[A-Za-z_]\w*$/.test(owner) && !modules["torch." + owner]) return { from, options: tensorMethods, validFor: /^\w*$/ };
    return null;
  };
}
