# rule: one-forward-hook-removed
import torch
import torch.nn as nn


def forward_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    activations = {}

    def hook(module, inputs, output):
        activations["a"] = output.detach()

    model[0].register_forward_hook(hook)  # handle dropped: the hook stays attached
    with torch.no_grad():
        out = model(x)
    act = activations["a"]
    return {
        "activation_shape": list(act.shape),
        "activation_values": [round(v, 4) for v in act.flatten().tolist()],
        "final_output": [round(v, 4) for v in out.flatten().tolist()],
    }
