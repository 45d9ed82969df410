import contextlib
from collections.abc import Iterator

import torch.nn as nn


@contextlib.contextmanager
def record_output_shapes(model: nn.Module) -> Iterator[dict[str, list[list[int]]]]:
    shapes: dict[str, list[list[int]]] = {}
    handles = []
    try:
        for name, module in model.named_modules():
            if next(module.children(), None) is not None:
                continue  # containers: their children are hooked instead
            shapes[name] = []

            def hook(module, inputs, output, name=name):
                shapes[name].append(list(output.shape))

            handles.append(module.register_forward_hook(hook))
        yield shapes
    finally:
        # Only the hooks this manager added, whatever happened in the body; the exception (if any)
        # propagates because nothing here catches it.
        for handle in handles:
            handle.remove()
