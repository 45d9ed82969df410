# rule: remove-only-own-hooks
import contextlib

import torch.nn as nn


@contextlib.contextmanager
def record_output_shapes(model: nn.Module):
    shapes = {}
    handles = []
    for name, module in model.named_modules():
        if next(module.children(), None) is not None:
            continue
        shapes[name] = []
        handles.append(
            module.register_forward_hook(lambda m, i, o, name=name: shapes[name].append(list(o.shape)))
        )
    yield shapes  # if the body raises, the exception comes out of this yield and the loop never runs
    for handle in handles:
        handle.remove()
