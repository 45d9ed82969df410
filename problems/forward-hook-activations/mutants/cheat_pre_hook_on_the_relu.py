# rule: one-forward-hook-removed
# kind: cheat
# The ReLU's forward *pre*-hook receives exactly the first Linear's output: the same values, from
# another kind of hook on another module.
import torch
import torch.nn as nn


def _rounded(t: torch.Tensor) -> list:
    return [round(v, 4) for v in t.flatten().tolist()]


def forward_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])

    activations: dict = {}

    def hook(module: nn.Module, inputs: tuple) -> None:
        output = inputs[0]
        # Store a detached copy: the hook only observes, it returns None so the output is unchanged.
        activations["first_linear"] = output.detach().clone()

    handle = model[1].register_forward_pre_hook(hook)
    try:
        with torch.no_grad():
            out = model(x)
    finally:
        handle.remove()

    act = activations["first_linear"]
    return {
        "activation_shape": list(act.shape),
        "activation_values": _rounded(act),
        "final_output": _rounded(out),
    }
