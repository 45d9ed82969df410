# rule: one-full-backward-hook-removed
import torch
import torch.nn as nn


def backward_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    target = torch.tensor([[1.0]])
    captured = {}

    def hook(module, grad_input, grad_output):
        captured["gi"] = grad_input
        captured["go"] = grad_output

    model[2].register_full_backward_hook(hook)  # handle dropped: the hook stays attached
    loss = nn.functional.mse_loss(model(x), target)
    loss.backward()
    return {
        "grad_output_shape": list(captured["go"][0].shape),
        "grad_input_shapes": [list(g.shape) for g in captured["gi"]],
        "num_grad_inputs": len(captured["gi"]),
    }
