import contextlib

import torch.nn as nn


@contextlib.contextmanager
def record_output_shapes(model: nn.Module):
    shapes = {}
    handles = []
    try:
        for name, module in model.named_modules():  # containers (and the model itself) too
            shapes[name] = []
            handles.append(
                module.register_forward_hook(lambda m, i, o, name=name: shapes[name].append(list(o.shape)))
            )
        yield shapes
    finally:
        for handle in handles:
            handle.remove()
