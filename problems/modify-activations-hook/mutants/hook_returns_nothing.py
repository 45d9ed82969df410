# rule: forward-hook-returns-clamped
import torch
import torch.nn as nn


def _r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


def modify_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])

    with torch.no_grad():
        out_without = model(x)

    def clamp_hook(module, inputs, output):
        output = output.clamp(-0.5, 0.5)  # rebinds a local name; the hook returns None

    handle = model[0].register_forward_hook(clamp_hook)
    with torch.no_grad():
        out_with = model(x)
    handle.remove()
    return {
        "output_without": _r(out_without),
        "output_with": _r(out_with),
        "outputs_differ": not torch.equal(out_without, out_with),
    }
