# rule: forward-hooks-removed
# kind: cheat
# One global forward hook for every module instead of one hook per module: the same order of calls,
# and a handle removed at the end, but not the hooks the statement asks for.
import torch
import torch.nn as nn


def locate_first_nonfinite(model: nn.Module, x: torch.Tensor) -> dict | None:
    found: list[dict] = []
    handles = []

    def make_hook(name: str):
        def hook(module, inputs, output):
            # Hooks fire when each forward finishes: the first one to see a non-finite value is
            # the first module (in execution order) that produced one.
            if not found and not torch.isfinite(output).all():
                found.append(
                    {
                        "name": name,
                        "type": type(module).__name__,
                        "nan": int(torch.isnan(output).sum()),
                        "inf": int(torch.isinf(output).sum()),
                    }
                )

        return hook

    try:
        names = {id(m): n for n, m in model.named_modules()}

        def global_hook(module, inputs, output):
            if id(module) in names:
                make_hook(names[id(module)])(module, inputs, output)

        handles.append(torch.nn.modules.module.register_module_forward_hook(global_hook))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return found[0] if found else None
