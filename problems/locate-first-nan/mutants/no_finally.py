# rule: forward-hooks-removed
import torch


def locate_first_nonfinite(model, x):
    found = []
    handles = []
    for name, module in model.named_modules():

        def hook(module, inputs, output, name=name):
            if not found and not torch.isfinite(output).all():
                found.append(
                    {
                        "name": name,
                        "type": type(module).__name__,
                        "nan": int(torch.isnan(output).sum()),
                        "inf": int(torch.isinf(output).sum()),
                    }
                )

        handles.append(module.register_forward_hook(hook))
    with torch.no_grad():
        model(x)  # if forward raises, the hooks below are never removed
    for handle in handles:
        handle.remove()
    return found[0] if found else None
