# rule: one-full-backward-hook-removed
# kind: cheat
# A forward hook on model[2] plants tensor hooks on its input and output: the backward pass reports
# the same gradients' shapes without any module backward hook.
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

    def plant(module, inputs, output):
        grads: dict = {}
        output.register_hook(lambda g: grads.__setitem__("out", g))

        def on_input(g):
            hook(module, (g,), (grads["out"],))

        inputs[0].register_hook(on_input)

    handle = model[2].register_forward_hook(plant)
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
