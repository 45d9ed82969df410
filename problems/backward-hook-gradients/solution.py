import torch
import torch.nn as nn


def backward_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    target = torch.tensor([[1.0]])

    captured: dict = {}

    def hook(module, grad_input, grad_output):
        # grad_input: gradients w.r.t. the module's *inputs* (here one tensor of shape [1, 4]);
        # grad_output: gradients w.r.t. the module's outputs. Weight/bias gradients are not included.
        captured["grad_output_shape"] = list(grad_output[0].shape)
        captured["grad_input_shapes"] = [list(g.shape) for g in grad_input]

    handle = model[2].register_full_backward_hook(hook)
    try:
        loss = nn.functional.mse_loss(model(x), target)
        loss.backward()
    finally:
        handle.remove()

    return {
        "grad_output_shape": captured["grad_output_shape"],
        "grad_input_shapes": captured["grad_input_shapes"],
        "num_grad_inputs": len(captured["grad_input_shapes"]),
    }
