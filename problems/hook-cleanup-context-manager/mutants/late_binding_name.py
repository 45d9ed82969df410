import contextlib

import torch.nn as nn


@contextlib.contextmanager
def record_output_shapes(model: nn.Module):
    shapes = {}
    handles = []
    try:
        for name, module in model.named_modules():
            if next(module.children(), None) is not None:
                continue
            shapes[name] = []

            def hook(m, inputs, output):
                shapes[name].append(list(output.shape))  # `name` is read when the hook runs

            handles.append(module.register_forward_hook(hook))
        yield shapes
    finally:
        for handle in handles:
            handle.remove()
