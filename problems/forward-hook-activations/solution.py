import torch
import torch.nn as nn


def _rounded(t: torch.Tensor) -> list:
    return [round(v, 4) for v in t.flatten().tolist()]


def forward_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])

    activations: dict = {}

    def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
        # Store a detached copy: the hook only observes, it returns None so the output is unchanged.
        activations["first_linear"] = output.detach().clone()

    handle = model[0].register_forward_hook(hook)
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
