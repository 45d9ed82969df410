import torch


def locate_first_nonfinite(model, x):
    bad = {}
    handles = []
    for name, module in model.named_modules():

        def hook(module, inputs, output, name=name):
            if name not in bad and not torch.isfinite(output).all():
                bad[name] = {
                    "name": name,
                    "type": type(module).__name__,
                    "nan": int(torch.isnan(output).sum()),
                    "inf": int(torch.isinf(output).sum()),
                }

        handles.append(module.register_forward_hook(hook))
    try:
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    # The first in named_modules() order (the model itself, then definition order), not call order.
    for name, _ in model.named_modules():
        if name in bad:
            return bad[name]
    return None
