# rule: one-forward-hook-removed
import torch
import torch.nn as nn


def forward_hook_test() -> dict:
    # Calls the first layer directly instead of observing it with a hook.
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    with torch.no_grad():
        act = model[0](x)
        out = model(x)
    return {
        "activation_shape": list(act.shape),
        "activation_values": [round(v, 4) for v in act.flatten().tolist()],
        "final_output": [round(v, 4) for v in out.flatten().tolist()],
    }
