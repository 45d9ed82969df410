# rule: forward-hooks-removed
import torch


def locate_first_nonfinite(model, x):
    found = []
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

        module.register_forward_hook(hook)  # handle dropped
    with torch.no_grad():
        model(x)
    return found[0] if found else None
