import torch
import torch.nn as nn


def backward_hook_test() -> dict:
    """Capture the gradients flowing through the second Linear layer with a full backward hook.

    1. torch.manual_seed(42), build nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)).
    2. Register a hook on the second Linear layer with register_full_backward_hook.
    3. Forward [[1., 2., 3.]], MSE loss against [[1.]], call backward().
    4. Remove the hook.

    Returns a dict with keys 'grad_output_shape', 'grad_input_shapes' and 'num_grad_inputs'.
    """
    # TODO: register the hook, run forward + backward, remove the hook, report the shapes
    raise NotImplementedError("backward_hook_test is not implemented yet")
