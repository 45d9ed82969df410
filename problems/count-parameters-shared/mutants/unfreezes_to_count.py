# rule: model-not-modified
# Right counts, but every parameter is left trainable.
import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    seen: set[int] = set()
    total = trainable = 0
    shared: list[str] = []
    # remove_duplicate=False yields every name a parameter is reachable under, so tied weights
    # show up twice; identity (not equal values) decides whether we have counted a tensor already.
    for name, param in model.named_parameters(remove_duplicate=False):
        if id(param) in seen:
            shared.append(name)
            continue
        seen.add(id(param))
        total += param.numel()
        if param.requires_grad:
            trainable += param.numel()
        param.requires_grad_(True)
    return {
        "total": total,
        "trainable": trainable,
        "frozen": total - trainable,
        "tensors": len(seen),
        "shared": sorted(shared),
    }
