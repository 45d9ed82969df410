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
        for name, module in model.named_modules():
            handles.append(module.register_forward_hook(make_hook(name)))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return found[0] if found else None
