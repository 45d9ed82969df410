# rule: forward-hook-returns-clamped
# kind: cheat
# The second layer's pre-hook clamps its input, which is the first layer's output: the same
# numbers, from the hook the statement rules out.
import torch
import torch.nn as nn


def _rounded(t: torch.Tensor) -> list:
    return [round(v, 4) for v in t.flatten().tolist()]


def modify_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])

    with torch.no_grad():
        out_without = model(x)

    def clamp_hook(module: nn.Module, inputs: tuple) -> tuple:
        return (inputs[0].clamp(-0.5, 0.5),)

    handle = model[1].register_forward_pre_hook(clamp_hook)
    try:
        with torch.no_grad():
            out_with = model(x)
    finally:
        handle.remove()

    return {
        "output_without": _rounded(out_without),
        "output_with": _rounded(out_with),
        "outputs_differ": not torch.equal(out_without, out_with),
    }
