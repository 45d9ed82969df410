import torch
import torch.nn as nn


def backward_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    target = torch.tensor([[1.0]])
    captured = {}

    # Uses tensor hooks on the activations instead of a module backward hook.
    hidden = model[1](model[0](x))
    out = model[2](hidden)
    hidden.register_hook(lambda g: captured.__setitem__("gi", (g,)))
    out.register_hook(lambda g: captured.__setitem__("go", (g,)))
    loss = nn.functional.mse_loss(out, target)
    loss.backward()
    return {
        "grad_output_shape": list(captured["go"][0].shape),
        "grad_input_shapes": [list(g.shape) for g in captured["gi"]],
        "num_grad_inputs": len(captured["gi"]),
    }
